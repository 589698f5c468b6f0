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

package main

import (
	"maps"
	"strings"
	"testing"
	"time"
)

func TestMedianAndSpread(t *testing.T) {
	for _, tc := range []struct {
		name   string
		vs     []float64
		median float64
		spread string
	}{
		{"none", nil, 0, "–"},
		{"one", []float64{0.71}, 0.71, "0.71x"},
		{"odd count, unsorted", []float64{0.9, 0.7, 0.8}, 0.8, "0.70–0.90x"},
		{"even count: mean of the middle two", []float64{4, 1, 3, 2}, 2.5, "1.00–4.00x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := median(tc.vs); got != tc.median {
				t.Errorf("median(%v) = %v, want %v", tc.vs, got, tc.median)
			}
			if got := spread(tc.vs, "x"); got != tc.spread {
				t.Errorf("spread(%v) = %q, want %q", tc.vs, got, tc.spread)
			}
		})
	}
}

func TestRatiosOfARound(t *testing.T) {
	r := roundResult{
		grove:          phaseTimes{running: 30 * time.Second, deleted: 18 * time.Second},
		peer:           phaseTimes{running: 40 * time.Second, deleted: 20 * time.Second},
		gated:          phaseTimes{running: 10 * time.Second},
		floor:          phaseTimes{running: 20 * time.Second, deleted: 10 * time.Second},
		groveCPU:       60,
		peerCPU:        80,
		floorCPU:       40,
		requestsPerPod: 9.6,
	}
	want := roundRatios{running: 0.75, cpu: 0.75, deletion: 0.9, groveGated: 3, requestsPerPod: 9.6,
		floor: peerRatios{running: 0.5, cpu: 0.5, deletion: 0.5}}
	if got := ratiosOf(r); got != want {
		t.Errorf("ratiosOf = %+v, want %+v", got, want)
	}
	// A side not measured gives no ratio, not an infinite or zero one.
	r.peer = phaseTimes{}
	r.peerCPU = 0
	got := ratiosOf(r)
	if got.running != 0 || got.cpu != 0 || got.deletion != 0 || got.floor != (peerRatios{}) {
		t.Errorf("ratiosOf without a peer = %+v, want no Grove / peer ratios", got)
	}
}

func TestCounters(t *testing.T) {
	exposition := `# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",resource="pods",scope="resource",subresource="",verb="DELETE",version="v1"} 12
apiserver_request_total{code="404",component="apiserver",resource="pods",scope="resource",subresource="",verb="DELETE",version="v1"} 3
apiserver_request_total{code="201",component="apiserver",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 7
apiserver_request_total_other{code="200",resource="pods",verb="DELETE"} 99
grove_operator_api_requests_total{code="200",resource="pods",verb="DELETE"} 5
`
	got := map[string]float64{}
	err := counters(strings.NewReader(exposition), "apiserver_request_total", func(l map[string]string, v float64) {
		res := l["resource"]
		if l["subresource"] != "" {
			res += "/" + l["subresource"]
		}
		got[l["verb"]+" "+res] += v
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"DELETE pods": 15, "POST pods/binding": 7}
	if !maps.Equal(got, want) {
		t.Errorf("counters = %v, want %v", got, want)
	}
	if s := requestSummary(map[string]float64{"DELETE pods": 15, "GET pods": 40, "POST pods/binding": 7, "LIST pods": 2}); s != "22 writes: DELETE pods 15, POST pods/binding 7" {
		t.Errorf("requestSummary = %q", s)
	}
	closed := map[string]float64{"POST pods": 3, "CLOSED pods": 9, "CLOSED podgangs": 4, "CLOSED services": 0}
	if s := requestSummary(closed); s != "3 writes: POST pods 3; watchers closed for falling behind: pods 9, podgangs 4" {
		t.Errorf("requestSummary with closed watchers = %q", s)
	}
}
