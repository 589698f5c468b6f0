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

// Package metrics defines grove-operator's own Prometheus metrics, registered
// with controller-runtime's registry and served next to its controller
// metrics on the metrics endpoint.
package metrics

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	// PodGangInitializationSeconds is the time from a PodGang's creation to
	// its Initialized condition turning True (all pods created and referenced).
	PodGangInitializationSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "grove_operator_podgang_initialization_seconds",
		Help:    "Time from PodGang creation until all its pods exist and are referenced (Initialized=True).",
		Buckets: prometheus.ExponentialBuckets(0.05, 2, 14),
	})
	// PodGangsPending is the number of PodGangs, per namespace, still waiting
	// for their pods (Initialized=False) as seen by the last PodCliqueSet syncs.
	PodGangsPending = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "grove_operator_podgangs_pending",
		Help: "PodGangs of a PodCliqueSet whose pods are not all created yet.",
	}, []string{"namespace", "podcliqueset"})
	// ComponentSyncSeconds is how long a PodCliqueSet component sync takes.
	ComponentSyncSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "grove_operator_component_sync_seconds",
		Help:    "Duration of one component sync of a PodCliqueSet reconcile, by component kind.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
	}, []string{"kind"})
	// APIRequests counts the operator's requests to the API server by verb,
	// resource (with subresource) and HTTP status code, the cost of
	// reconciling in requests; the codes show the writes refused as
	// conflicts (409) or answered "not found" (404).
	APIRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "grove_operator_api_requests_total",
		Help: "Requests grove-operator sent to the API server, by verb, resource and HTTP status code (\"error\" when no response came).",
	}, []string{"verb", "resource", "code"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(PodGangInitializationSeconds, PodGangsPending, ComponentSyncSeconds, APIRequests)
}

// CountRequests wraps a client transport so every request is counted in
// APIRequests.
func CountRequests(rt http.RoundTripper) http.RoundTripper {
	return countingTransport{next: rt}
}

type countingTransport struct{ next http.RoundTripper }

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	verb, resource := RequestKind(req)
	resp, err := t.next.RoundTrip(req)
	code := "error"
	if err == nil && resp != nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	APIRequests.WithLabelValues(verb, resource, code).Inc()
	return resp, err
}

// RequestKind names a Kubernetes API request by verb (GET, LIST, WATCH, POST,
// PUT, PATCH, DELETE) and resource, e.g. ("PATCH", "pods/status"), from its
// path: /api/v1/namespaces/ns/pods/name/status, /apis/group/version/...
func RequestKind(req *http.Request) (verb, resource string) {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return req.Method, "other"
	}
	if len(parts) >= 2 && parts[0] == "namespaces" {
		if len(parts) == 2 {
			parts = parts[:1] // a namespace itself
		} else {
			parts = parts[2:]
		}
	}
	verb = req.Method
	switch {
	case len(parts) == 0:
		return verb, "other"
	case len(parts) == 1 && verb == http.MethodGet:
		verb = "LIST"
		if req.URL.Query().Get("watch") == "true" {
			verb = "WATCH"
		}
	}
	resource = parts[0]
	if len(parts) >= 3 {
		resource += "/" + parts[2]
	}
	return verb, resource
}
