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

package metrics

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

func TestRequestKind(t *testing.T) {
	for _, tc := range []struct {
		method, target       string
		wantVerb, wantResrce string
	}{
		{"POST", "/api/v1/namespaces/default/pods", "POST", "pods"},
		{"GET", "/api/v1/namespaces/default/pods", "LIST", "pods"},
		{"GET", "/api/v1/pods?watch=true&resourceVersion=5", "WATCH", "pods"},
		{"GET", "/api/v1/namespaces/default/pods/p-1", "GET", "pods"},
		{"PATCH", "/api/v1/namespaces/default/pods/p-1/status", "PATCH", "pods/status"},
		{"PATCH", "/apis/scheduler.grove.io/v1alpha1/namespaces/ns/podgangs/pg-0/status", "PATCH", "podgangs/status"},
		{"PUT", "/apis/grove.io/v1alpha1/namespaces/ns/podcliques/a/scale", "PUT", "podcliques/scale"},
		{"GET", "/apis/grove.io/v1alpha1/clustertopologybindings", "LIST", "clustertopologybindings"},
		{"DELETE", "/api/v1/namespaces/ns", "DELETE", "namespaces"},
		{"GET", "/healthz", "GET", "other"},
	} {
		verb, resource := RequestKind(httptest.NewRequest(tc.method, tc.target, nil))
		if verb != tc.wantVerb || resource != tc.wantResrce {
			t.Errorf("%s %s: got %s %s, want %s %s", tc.method, tc.target, verb, resource, tc.wantVerb, tc.wantResrce)
		}
	}
}

func TestCountRequests(t *testing.T) {
	refused := errors.New("connection refused")
	for _, tc := range []struct {
		name     string
		resp     *http.Response
		err      error
		wantCode string
	}{
		{name: "created", resp: &http.Response{StatusCode: 201}, wantCode: "201"},
		{name: "conflict", resp: &http.Response{StatusCode: 409}, wantCode: "409"},
		{name: "no response", err: refused, wantCode: "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := CountRequests(roundTripFunc(func(*http.Request) (*http.Response, error) { return tc.resp, tc.err }))
			before := counterValue(t, "PATCH", "podgangs/status", tc.wantCode)
			resp, err := rt.RoundTrip(httptest.NewRequest("PATCH", "/apis/scheduler.grove.io/v1alpha1/namespaces/x/podgangs/a/status", nil))
			if resp != tc.resp || !errors.Is(err, tc.err) {
				t.Fatalf("RoundTrip returned %v, %v; want the wrapped transport's %v, %v", resp, err, tc.resp, tc.err)
			}
			if got := counterValue(t, "PATCH", "podgangs/status", tc.wantCode) - before; got != 1 {
				t.Fatalf("counted %v requests with code %s, want 1", got, tc.wantCode)
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func counterValue(t *testing.T, verb, resource, code string) float64 {
	t.Helper()
	m := &dto.Metric{}
	if err := APIRequests.WithLabelValues(verb, resource, code).Write(m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
