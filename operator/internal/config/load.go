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

package config

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// Load reads, defaults and validates a configuration file. Unknown fields are
// errors, so a misspelt key is not silently ignored.
func Load(path string) (*OperatorConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading operator configuration: %w", err)
	}
	return Parse(data)
}

// Parse decodes, defaults and validates a configuration.
func Parse(data []byte) (*OperatorConfiguration, error) {
	c := &OperatorConfiguration{}
	if err := yaml.UnmarshalStrict(data, c); err != nil {
		return nil, fmt.Errorf("decoding operator configuration: %w", err)
	}
	if c.APIVersion != APIVersion || c.Kind != Kind {
		return nil, fmt.Errorf("operator configuration must have apiVersion %s and kind %s, got %q and %q", APIVersion, Kind, c.APIVersion, c.Kind)
	}
	SetDefaults(c)
	if errs := Validate(c); len(errs) > 0 {
		return nil, fmt.Errorf("invalid operator configuration: %w", errs.ToAggregate())
	}
	return c, nil
}

// Default returns the default configuration.
func Default() *OperatorConfiguration {
	c := &OperatorConfiguration{}
	SetDefaults(c)
	return c
}
