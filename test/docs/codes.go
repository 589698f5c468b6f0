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
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// errorCode is the shape of the codes in status.lastErrors and grove-initc's log.
var errorCode = regexp.MustCompile(`^ERR_[A-Z_]+$`)

// reasonConst matches the names of constants that hold an Event reason or a
// condition type or reason: Reason…, ConditionReason…, ConditionType…,
// PodGangConditionType…, PodGangReason….
var reasonConst = regexp.MustCompile(`^(Reason|ConditionReason|ConditionType|PodGangConditionType|PodGangReason)[A-Z]`)

// eventCalls maps the functions that post an Event to the index of their
// reason argument.
var eventCalls = map[string]int{"Eventf": 3, "EventOnGang": 2}

// ReportedCodes returns, sorted and without repeats, what Grove reports that
// a user may look up, as written in the non-test Go files under dirs: every
// ERR_* string literal, every string constant named like a reason or
// condition (see reasonConst), every literal reason passed to Eventf or
// EventOnGang, and every literal Reason: field (backend verdicts). Test
// harnesses (test/, testdata/) and generated clients are skipped.
func ReportedCodes(dirs ...string) ([]string, error) {
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "test" || d.Name() == "client") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasPrefix(d.Name(), "zz_generated") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return fmt.Errorf("parsing %s: %w", path, err)
			}
			collect(f, seen)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", dir, err)
		}
	}
	codes := make([]string, 0, len(seen))
	for c := range seen {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes, nil
}

func collect(f *ast.File, seen map[string]bool) {
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil && v != "" {
				seen[v] = true
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if v, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && errorCode.MatchString(v) {
				seen[v] = true
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if reasonConst.MatchString(name.Name) && i < len(n.Values) {
					add(n.Values[i])
				}
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if i, ok := eventCalls[sel.Sel.Name]; ok && i < len(n.Args) {
					add(n.Args[i])
				}
			}
		case *ast.KeyValueExpr:
			if key, ok := n.Key.(*ast.Ident); ok && key.Name == "Reason" {
				add(n.Value)
			}
		}
		return true
	})
}

// metricDefinition matches the name in a Prometheus metric definition.
var metricDefinition = regexp.MustCompile(`Name:\s+"(grove_[a-z_]+)"`)

// metricFiles hold every grove_ metric grove-operator and grove-scheduler register.
var metricFiles = []string{"operator/internal/metrics/metrics.go", "scheduler/pkg/metrics/metrics.go"}

// Metrics returns the grove_ metrics grove-operator and grove-scheduler
// register, read from their definitions under root.
func Metrics(root string) ([]string, error) {
	var names []string
	for _, f := range metricFiles {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, fmt.Errorf("reading metric definitions: %w", err)
		}
		for _, m := range metricDefinition.FindAllStringSubmatch(string(src), -1) {
			names = append(names, m[1])
		}
	}
	return names, nil
}
