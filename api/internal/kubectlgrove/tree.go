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

package kubectlgrove

import (
	"io"
	"strings"
)

// node is one line of the printed tree with the notes that explain it and
// its children.
type node struct {
	line     string
	notes    []string
	children []*node
}

func (n *node) add(children ...*node) { n.children = append(n.children, children...) }

// write prints the tree: the root flush left, children behind box-drawing
// branches, notes indented under their line.
func (n *node) write(w io.Writer) error {
	var b strings.Builder
	n.render(&b, "", "", "")
	_, err := io.WriteString(w, b.String())
	return err
}

func (n *node) render(b *strings.Builder, prefix, branch, continuation string) {
	b.WriteString(prefix + branch + n.line + "\n")
	inner := prefix + continuation
	noteBar := "   "
	if len(n.children) > 0 {
		noteBar = "│  "
	}
	for _, note := range n.notes {
		b.WriteString(inner + noteBar + note + "\n")
	}
	for i, c := range n.children {
		if i == len(n.children)-1 {
			c.render(b, inner, "└─ ", "   ")
		} else {
			c.render(b, inner, "├─ ", "│  ")
		}
	}
}
