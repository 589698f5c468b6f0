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

package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestAnchor(t *testing.T) {
	cases := []struct{ heading, want string }{
		{"End to end (`make bench-e2e`)", "end-to-end-make-bench-e2e"},
		{"Status: `Running` → `Ready`", "status-running--ready"},
		{"`GROVE_PCSG_INDEX` and rank", "grove_pcsg_index-and-rank"},
		{"The operator's memory at 10k pods", "the-operators-memory-at-10k-pods"},
		{"See [the guide](guide.md) first", "see-the-guide-first"},
		{"Über größe", "über-größe"},
	}
	for _, c := range cases {
		if got := Anchor(c.heading); got != c.want {
			t.Errorf("Anchor(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

func TestCheckReportsEveryBrokenLinkAndNothingElse(t *testing.T) {
	root := filepath.Join("testdata", "repo")
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"README.md", "docs/guide.md", "docs/sub/page.md"}; !slices.Equal(files, want) {
		t.Fatalf("Files = %v, want %v", files, want)
	}
	broken, err := Check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range broken {
		got = append(got, b.String())
	}
	want := []string{
		"README.md:4: docs/nope.md: no such file",
		"README.md:4: docs/guide.md#uninstall: no heading with anchor #uninstall in docs/guide.md",
		"docs/guide.md:21: #nothing-here: no heading with anchor #nothing-here in docs/guide.md",
		"docs/guide.md:21: ../../x.md: points outside the repository",
		"docs/guide.md:23: sub/missing.md: no such file",
	}
	if !slices.Equal(got, want) {
		t.Errorf("broken links:\n got %q\nwant %q", got, want)
	}
}

// TestRepositoryDocs runs the check on this repository's own pages, as
// `make verify-docs-links` does.
func TestRepositoryDocs(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	broken, err := Check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
}

// TestReferencePageListsEveryCode fails when an Event reason, a condition
// type or reason, or an ERR_* code written in any module's Go source is not
// on docs/reference/events-and-errors.md (as `code`).
func TestReferencePageListsEveryCode(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	var dirs []string
	for _, m := range []string{"api", "operator", "scheduler", "initc"} {
		dirs = append(dirs, filepath.Join(root, m))
	}
	codes, err := ReportedCodes(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "reference", "events-and-errors.md"))
	if err != nil {
		t.Fatal(err)
	}
	errCodes := 0
	for _, c := range codes {
		if errorCode.MatchString(c) {
			errCodes++
		}
		if !strings.Contains(string(page), "`"+c+"`") {
			t.Errorf("%s is reported by Grove but not listed on docs/reference/events-and-errors.md", c)
		}
	}
	if errCodes < 46 {
		t.Errorf("found %d ERR_* codes in the source, want at least 46: the scan misses some", errCodes)
	}
}

// TestOperationsPageListsEveryMetric fails when a grove_ metric the
// components register is not in docs/operations.md's metrics table.
func TestOperationsPageListsEveryMetric(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	metrics, err := Metrics(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(metrics) < 8 {
		t.Fatalf("found %d grove_ metric definitions, want at least 8", len(metrics))
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range metrics {
		if !strings.Contains(string(page), "`"+m) {
			t.Errorf("%s is not listed on docs/operations.md", m)
		}
	}
}

// TestRunbookQuotesGroveInitcAsItLogs fails when a grove-initc log message
// docs/troubleshooting.md quotes is no longer in grove-initc's source (the
// end-to-end runbook specs cannot run grove-initc: kwok runs no containers).
func TestRunbookQuotesGroveInitcAsItLogs(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..")
	page, err := os.ReadFile(filepath.Join(root, "docs", "troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	var source strings.Builder
	err = filepath.WalkDir(filepath.Join(root, "initc", "internal"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := os.ReadFile(path)
		source.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		`"Waiting for parent PodClique", "podclique"`, // the progress line, with its keys
		`"ready", s.Ready, "required", s.Required,`,
		`"waitingFor", s.Required-s.Ready`,
		`"Successfully waited for all parent PodCliques to start up"`,
	} {
		if !strings.Contains(source.String(), msg) {
			t.Errorf("grove-initc no longer logs %s", msg)
		}
	}
	for _, quote := range []string{
		`"msg":"Waiting for parent PodClique","podclique":`,
		"`Successfully waited for all parent PodCliques to start up`",
		`"ready":1,"required":2,"waitingFor":1`,
	} {
		if !strings.Contains(string(page), quote) {
			t.Errorf("docs/troubleshooting.md does not quote %s", quote)
		}
	}
}

// TestBenchmarksPageStaysAReference keeps docs/dev/benchmarks.md what issue
// 39 made it: the method and one current table per benchmark, under 15 KiB,
// with no dated run log (run history lives in commit messages).
func TestBenchmarksPageStaysAReference(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "..", "docs", "dev", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 15*1024 {
		t.Errorf("docs/dev/benchmarks.md is %d bytes, more than 15 KiB: keep the method and the current table of each benchmark, drop history", len(b))
	}
	dated := regexp.MustCompile(`20[0-9]{2}-[01][0-9]-[0-3][0-9]( |T)[0-2][0-9]:[0-5][0-9]|[0-2][0-9]:[0-5][0-9] UTC`)
	for i, line := range strings.Split(string(b), "\n") {
		if dated.MatchString(line) {
			t.Errorf("docs/dev/benchmarks.md:%d is a dated run log: %q", i+1, line)
		}
	}
}
