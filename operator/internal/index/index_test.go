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

package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
)

// recorder is a FieldIndexer that keeps what was registered.
type recorder struct {
	fields map[string]client.IndexerFunc
	failOn string
}

func (r *recorder) IndexField(_ context.Context, obj client.Object, field string, fn client.IndexerFunc) error {
	key := fmt.Sprintf("%T %s", obj, field)
	if key == r.failOn {
		return errors.New("indexer conflict")
	}
	if _, dup := r.fields[key]; dup {
		return fmt.Errorf("%s registered twice", key)
	}
	r.fields[key] = fn
	return nil
}

func TestRegister(t *testing.T) {
	r := &recorder{fields: map[string]client.IndexerFunc{}}
	if err := Register(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range r.fields {
		got = append(got, k)
	}
	slices.Sort(got)
	want := []string{
		"*v1.Pod grove.io/podclique",
		"*v1.Service grove.io/part-of",
		"*v1alpha1.PodClique grove.io/base-podgang",
		"*v1alpha1.PodClique grove.io/part-of",
		"*v1alpha1.PodCliqueScalingGroup grove.io/part-of",
		"*v1alpha1.PodGang grove.io/part-of",
		"*v2.HorizontalPodAutoscaler grove.io/part-of",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("registered %q, want %q", got, want)
	}

	tests := []struct {
		index  string
		labels map[string]string
		want   []string
	}{
		{"*v1alpha1.PodClique grove.io/part-of", map[string]string{"app.kubernetes.io/part-of": "inference"}, []string{"inference"}},
		{"*v1alpha1.PodClique grove.io/part-of", map[string]string{"grove.io/podclique": "inference-0-w"}, nil},
		{"*v1alpha1.PodClique grove.io/part-of", map[string]string{"app.kubernetes.io/part-of": ""}, nil},
		{"*v1alpha1.PodClique grove.io/base-podgang", map[string]string{"grove.io/base-podgang": "inference-0"}, []string{"inference-0"}},
		{"*v1alpha1.PodClique grove.io/base-podgang", nil, nil},
		{"*v1.Pod grove.io/podclique", map[string]string{"grove.io/podclique": "inference-0-w", "app.kubernetes.io/part-of": "inference"}, []string{"inference-0-w"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %v", tt.index, tt.labels), func(t *testing.T) {
			obj := &grovecorev1alpha1.PodClique{ObjectMeta: metav1.ObjectMeta{Labels: tt.labels}}
			if got := r.fields[tt.index](obj); !slices.Equal(got, tt.want) {
				t.Errorf("filed under %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRegisterReportsTheFailingIndex(t *testing.T) {
	r := &recorder{fields: map[string]client.IndexerFunc{}, failOn: "*v1alpha1.PodGang grove.io/part-of"}
	err := Register(context.Background(), r)
	if err == nil || err.Error() != "indexing *v1alpha1.PodGang by app.kubernetes.io/part-of: indexer conflict" {
		t.Fatalf("error %v", err)
	}
}

func TestSelectors(t *testing.T) {
	for _, tt := range []struct {
		got  client.MatchingFields
		want client.MatchingFields
	}{
		{InSet("inference"), client.MatchingFields{"grove.io/part-of": "inference"}},
		{InPodClique("inference-0-w"), client.MatchingFields{"grove.io/podclique": "inference-0-w"}},
		{WaitingOn("inference-0"), client.MatchingFields{"grove.io/base-podgang": "inference-0"}},
	} {
		if len(tt.got) != 1 || fmt.Sprint(tt.got) != fmt.Sprint(tt.want) {
			t.Errorf("got %v, want %v", tt.got, tt.want)
		}
	}
}
