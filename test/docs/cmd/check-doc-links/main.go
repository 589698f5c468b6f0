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

// Command check-doc-links fails when a relative link or #anchor in README.md
// or docs/ points at nothing. `make verify-docs-links` runs it.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/grove-project/grove/test/docs"
)

func main() {
	root := flag.String("root", ".", "the repository's root directory")
	flag.Parse()
	files, err := docs.Files(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	broken, err := docs.Check(*root, files)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, b := range broken {
		fmt.Fprintln(os.Stderr, b)
	}
	if len(broken) > 0 {
		fmt.Fprintf(os.Stderr, "%d broken links in %d pages\n", len(broken), len(files))
		os.Exit(1)
	}
	fmt.Printf("links of %d pages checked\n", len(files))
}
