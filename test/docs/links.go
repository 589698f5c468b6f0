/*
Copyright 2026 The Grove Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package docs checks the repository's Markdown documentation: every relative
// link must name a file that exists, and every #anchor a heading of the page
// it points at, with the anchors GitHub gives headings. A renamed heading or
// a moved page otherwise breaks links silently.
package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// BrokenLink is a link whose target file or anchor does not exist.
type BrokenLink struct {
	// File is the page holding the link, Line its 1-based line.
	File string
	Line int
	// Target is the link as written.
	Target string
	// Reason says what is missing.
	Reason string
}

func (b BrokenLink) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", b.File, b.Line, b.Target, b.Reason)
}

var (
	// inlineLink matches [text](target) and ![alt](target); the target ends at
	// the first space (a title may follow) or the closing parenthesis.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// referenceDef matches a reference definition: [name]: target.
	referenceDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	// htmlAnchor matches an explicit anchor: <a id="x"> or <a name="x">.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	// codeSpan matches inline code, whose content is never a link.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// headingLink matches a link inside a heading, rendered as its text.
	headingLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// page is what a Markdown file offers and holds: its anchors and its links.
type page struct {
	anchors map[string]bool
	links   []link
}

type link struct {
	line   int
	target string
}

// Check reads the Markdown files (paths relative to root) and returns every
// link among them that points at a missing file or a missing anchor. Links
// with a scheme (https:, mailto:) are not followed.
func Check(root string, files []string) ([]BrokenLink, error) {
	pages := map[string]*page{}
	load := func(rel string) (*page, error) {
		if p, ok := pages[rel]; ok {
			return p, nil
		}
		p, err := parse(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		pages[rel] = p
		return p, nil
	}
	var broken []BrokenLink
	for _, file := range files {
		p, err := load(file)
		if err != nil {
			return nil, err
		}
		for _, l := range p.links {
			if reason, err := checkLink(root, file, l.target, load); err != nil {
				return nil, err
			} else if reason != "" {
				broken = append(broken, BrokenLink{File: file, Line: l.line, Target: l.target, Reason: reason})
			}
		}
	}
	return broken, nil
}

// checkLink returns why target, written in file, is broken, or "".
func checkLink(root, file, target string, load func(string) (*page, error)) (string, error) {
	if hasScheme(target) {
		return "", nil
	}
	path, anchor, _ := strings.Cut(target, "#")
	rel := file
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return "absolute path: links must be relative so they work in every checkout and on GitHub", nil
		}
		rel = filepath.Clean(filepath.Join(filepath.Dir(file), path))
		if strings.HasPrefix(rel, "..") {
			return "points outside the repository", nil
		}
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			return "no such file", nil
		}
	}
	if anchor == "" || !strings.HasSuffix(rel, ".md") {
		return "", nil
	}
	dest, err := load(rel)
	if err != nil {
		return "", err
	}
	if !dest.anchors[anchor] {
		return fmt.Sprintf("no heading with anchor #%s in %s", anchor, rel), nil
	}
	return "", nil
}

func hasScheme(target string) bool {
	scheme, _, ok := strings.Cut(target, ":")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/#.") {
		return false
	}
	return !strings.ContainsFunc(scheme, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '-'
	})
}

// parse reads one Markdown file: the anchors of its headings (and explicit
// <a id> anchors) and the links outside code.
func parse(path string) (*page, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	p := &page{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			p.anchors[m[1]] = true
		}
		if text, ok := headingText(line); ok {
			a := Anchor(text)
			if k := seen[a]; k > 0 {
				p.anchors[fmt.Sprintf("%s-%d", a, k)] = true
			} else {
				p.anchors[a] = true
			}
			seen[a]++
		}
		if m := referenceDef.FindStringSubmatch(line); m != nil {
			p.links = append(p.links, link{line: n, target: m[1]})
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			p.links = append(p.links, link{line: n, target: m[1]})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return p, nil
}

// headingText returns the text of an ATX heading line (# to ######).
func headingText(line string) (string, bool) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 {
		return "", false
	}
	level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
	if level == 0 || level > 6 {
		return "", false
	}
	rest := trimmed[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	// A closing sequence of #s is not part of the text.
	if stripped := strings.TrimRight(rest, "#"); stripped != rest && (stripped == "" || strings.HasSuffix(stripped, " ")) {
		rest = strings.TrimSpace(stripped)
	}
	return rest, true
}

// Anchor returns the anchor GitHub gives a heading with this Markdown text:
// the rendered text (links as their text) lower-cased, every character that
// is not a letter, digit, space, hyphen or underscore dropped, and each space
// turned into a hyphen. A repeated anchor gets -1, -2, ... on the page.
func Anchor(heading string) string {
	text := headingLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Files lists the pages the repository's link check covers, relative to root:
// README.md and every Markdown file under docs/, sorted.
func Files(root string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing docs: %w", err)
	}
	slices.Sort(files)
	return files, nil
}
