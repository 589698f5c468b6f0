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

// Package metrics defines grove-scheduler's grove_ metrics. They live in
// component-base's legacy registry, so kube-scheduler's secure /metrics
// endpoint exports them next to the scheduler_ metrics, and Serve exposes the
// same registry on a plain HTTP port for port-forward access.
package metrics

import (
	"sync"
	"time"

	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Attempt results.
const (
	// ResultScheduled means the gang's minimum set was permitted as a whole.
	ResultScheduled = "scheduled"
	// ResultUnschedulable means the gang did not fit and backed off.
	ResultUnschedulable = "unschedulable"
	// ResultTimeout means the gang's reservations expired at Permit.
	ResultTimeout = "timeout"
)

var (
	// GangAttempts counts gang scheduling attempts by result.
	GangAttempts = k8smetrics.NewCounterVec(&k8smetrics.CounterOpts{
		Name:           "grove_gang_scheduling_attempts_total",
		Help:           "Gang scheduling attempts by result (scheduled, unschedulable, timeout).",
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"result"})

	// GangAttemptDuration measures an attempt from its first pod's PreFilter to its verdict.
	GangAttemptDuration = k8smetrics.NewHistogramVec(&k8smetrics.HistogramOpts{
		Name:           "grove_gang_scheduling_attempt_duration_seconds",
		Help:           "Duration of a gang scheduling attempt, from the first pod's PreFilter to the gang being permitted or rejected.",
		Buckets:        k8smetrics.ExponentialBuckets(0.001, 2, 16),
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"result"})

	// GangsWaitingAtPermit is the number of gangs whose pods hold reservations at Permit.
	GangsWaitingAtPermit = k8smetrics.NewGauge(&k8smetrics.GaugeOpts{
		Name:           "grove_gangs_waiting_at_permit",
		Help:           "Number of gangs with pods waiting at Permit for the rest of their minimum set.",
		StabilityLevel: k8smetrics.ALPHA,
	})

	// TimeToMinimumSetBound measures PodGang creation to its minimum set being bound.
	TimeToMinimumSetBound = k8smetrics.NewHistogram(&k8smetrics.HistogramOpts{
		Name:           "grove_podgang_time_to_minimum_set_bound_seconds",
		Help:           "Time from PodGang creation until every pod group has minReplicas pods bound.",
		Buckets:        k8smetrics.ExponentialBuckets(0.05, 2, 16),
		StabilityLevel: k8smetrics.ALPHA,
	})

	// BindRetries counts gang pod binds sent again after a failure that passes.
	BindRetries = k8smetrics.NewCounterVec(&k8smetrics.CounterOpts{
		Name:           "grove_bind_retries_total",
		Help:           "Gang pod binds retried after a failure that passes, by reason (throttled, timeout, server-error, connection).",
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"reason"})

	registerOnce sync.Once
)

// Register adds the grove_ metrics to the legacy registry; safe to call repeatedly.
func Register() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(GangAttempts, GangAttemptDuration, GangsWaitingAtPermit, TimeToMinimumSetBound, BindRetries)
	})
}

// RecordAttempt counts one finished gang attempt and its duration.
func RecordAttempt(result string, d time.Duration) {
	GangAttempts.WithLabelValues(result).Inc()
	GangAttemptDuration.WithLabelValues(result).Observe(d.Seconds())
}
