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

// Package chartvalues sets keys in a Helm values file while keeping its
// comments and order, for the packaged copy of the chart a release ships
// (image repositories, tags and digests).
package chartvalues

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Set sets each dotted key (image.operator.digest) of the YAML document in
// data to its value, creating missing mappings, and returns the new document.
func Set(data []byte, values map[string]string, keys []string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parsing values: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("values: the document is not a mapping")
	}
	for _, key := range keys {
		if err := set(doc.Content[0], strings.Split(key, "."), values[key]); err != nil {
			return nil, fmt.Errorf("values: %s: %w", key, err)
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

func set(m *yaml.Node, path []string, value string) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != path[0] {
			continue
		}
		v := m.Content[i+1]
		if len(path) == 1 {
			*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, LineComment: v.LineComment}
			return nil
		}
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is not a mapping", path[0])
		}
		// A flow mapping ({a: 1}) keeps its style; a new nested key stays readable either way.
		return set(v, path[1:], value)
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: path[0]}
	if len(path) == 1 {
		m.Content = append(m.Content, k, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
		return nil
	}
	child := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	m.Content = append(m.Content, k, child)
	return set(child, path[1:], value)
}
