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
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// schemaNode is the part of a JSON schema the chart's values.schema.json uses.
type schemaNode struct {
	Type                 any                    `json:"type"`
	Properties           map[string]*schemaNode `json:"properties"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
	AllOf                []struct {
		If struct {
			Properties map[string]struct {
				Const string `json:"const"`
			} `json:"properties"`
		} `json:"if"`
		Then struct {
			Properties map[string]*schemaNode `json:"properties"`
		} `json:"then"`
	} `json:"allOf"`
}

// chartOwned are the configuration fields the chart sets from other values,
// so values.schema.json refuses them under operator.config.
var chartOwned = map[string]string{
	"apiVersion":                        "fixed",
	"kind":                              "fixed",
	"initContainer":                     "image.initc",
	"server.webhooks.certProvisionMode": "webhooks.certProvisionMode and certManager.enabled",
	"server.webhooks.secretNamespace":   "the release namespace",
	"server.metrics.secureServing":      "metrics.secureServing",
	"leaderElection.resourceNamespace":  "the release namespace",
}

// profileConfigTypes are the Go types of each scheduler backend's config.
var profileConfigTypes = map[string]reflect.Type{
	SchedulerBackendDefault:          reflect.TypeFor[DefaultSchedulerConfig](),
	SchedulerBackendSchedulerPlugins: reflect.TypeFor[SchedulerPluginsConfig](),
	SchedulerBackendVolcano:          reflect.TypeFor[VolcanoConfig](),
	SchedulerBackendKAI:              reflect.TypeFor[KAIConfig](),
}

// TestChartSchemaMirrorsConfiguration: operator.config in the chart's
// values.schema.json has exactly the fields of OperatorConfiguration (less
// those the chart sets itself), each of the JSON type the operator decodes,
// and refuses unknown keys at every level, backend configs included. A field
// added to the Go type without the schema fails here, not in a user's
// crash-looping operator.
func TestChartSchemaMirrorsConfiguration(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "charts", "grove", "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var root schemaNode
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatalf("values.schema.json: %v", err)
	}
	node := root.Properties["operator"].Properties["config"]
	if node == nil {
		t.Fatal("values.schema.json has no operator.config")
	}
	var problems []string
	compare(reflect.TypeFor[OperatorConfiguration](), node, "", &problems)

	// Each backend's config, chosen by the profile's name.
	profile := node.Properties["scheduler"].Properties["profiles"].Items
	seen := map[string]bool{}
	for _, a := range profile.AllOf {
		name := a.If.Properties["name"].Const
		if cfg := a.Then.Properties["config"]; cfg != nil {
			seen[name] = true
			typ, ok := profileConfigTypes[name]
			if !ok {
				problems = append(problems, "scheduler.profiles[].config: schema for unknown backend "+name)
				continue
			}
			compare(typ, cfg, "scheduler.profiles[name="+name+"].config.", &problems)
		}
	}
	for name := range profileConfigTypes {
		if !seen[name] {
			problems = append(problems, "scheduler.profiles[].config: no schema for backend "+name)
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// compare checks one struct type against its schema object.
func compare(typ reflect.Type, node *schemaNode, prefix string, problems *[]string) {
	if string(node.AdditionalProperties) != "false" {
		*problems = append(*problems, prefix+": schema object allows unknown keys (additionalProperties must be false)")
	}
	fields := map[string]reflect.StructField{}
	collectFields(typ, fields)
	for name, f := range fields {
		path := prefix + name
		if _, owned := chartOwned[path]; owned {
			if _, ok := node.Properties[name]; ok {
				*problems = append(*problems, path+": set by the chart ("+chartOwned[path]+"), but the schema lets operator.config set it")
			}
			continue
		}
		sub, ok := node.Properties[name]
		if !ok {
			*problems = append(*problems, path+": field of "+typ.Name()+" missing from values.schema.json")
			continue
		}
		checkType(f.Type, sub, path, problems)
	}
	for name := range node.Properties {
		if _, ok := fields[name]; !ok {
			*problems = append(*problems, prefix+name+": in values.schema.json but not a field of "+typ.Name())
		}
	}
}

var (
	durationType = reflect.TypeFor[metav1.Duration]()
	rawType      = reflect.TypeFor[runtime.RawExtension]()
)

func checkType(typ reflect.Type, node *schemaNode, path string, problems *[]string) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	var want string
	switch {
	case typ == durationType:
		want = "string"
	case typ == rawType:
		want = "object" // checked per backend
	case typ.Kind() == reflect.String:
		want = "string"
	case typ.Kind() == reflect.Bool:
		want = "boolean"
	case typ.Kind() >= reflect.Int && typ.Kind() <= reflect.Uint64:
		want = "integer"
	case typ.Kind() == reflect.Float32 || typ.Kind() == reflect.Float64:
		want = "number"
	case typ.Kind() == reflect.Slice:
		want = "array"
	case typ.Kind() == reflect.Struct:
		want = "object"
	default:
		*problems = append(*problems, path+": Go kind "+typ.Kind().String()+" has no schema mapping in this test")
		return
	}
	if got, _ := node.Type.(string); got != want {
		*problems = append(*problems, path+": schema type "+jsonString(node.Type)+", want "+want)
		return
	}
	switch {
	case typ == durationType || typ == rawType:
	case typ.Kind() == reflect.Struct:
		compare(typ, node, path+".", problems)
	case typ.Kind() == reflect.Slice:
		if node.Items == nil {
			*problems = append(*problems, path+": array without items")
			return
		}
		checkType(typ.Elem(), node.Items, path+"[]", problems)
	}
}

// collectFields maps JSON names to fields, descending into inline structs.
func collectFields(typ reflect.Type, into map[string]reflect.StructField) {
	for f := range typ.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" && (f.Anonymous || slices.Contains(strings.Split(opts, ","), "inline")) {
			collectFields(f.Type, into)
			continue
		}
		into[name] = f
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
