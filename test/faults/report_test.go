//go:build faults

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

package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/grove-project/grove/test/cluster"
)

// Where a round got to; a failed round stopped there.
const (
	stageSetup    = "setup"    // bringing the PodCliqueSet to the phase's start, without a fault
	stagePhase    = "phase"    // starting the phase's work
	stageFault    = "fault"    // killing and starting the component
	stageRecovery = "recovery" // waiting until quiet and checking the invariants
	stageDone     = "done"
)

// roundResult is what one round measured.
type roundResult struct {
	Fault string `json:"fault"`
	Round int    `json:"round"`
	Phase string `json:"phase"`
	Seed  int64  `json:"seed"`
	// Delay is from the phase's API call to the kill.
	Delay time.Duration `json:"delay"`
	// Progress is the PodCliqueSet's state at the kill.
	Progress string        `json:"progress"`
	Outage   time.Duration `json:"outage"`
	// Restart is how long the component took to be healthy again after the outage.
	Restart time.Duration `json:"restart"`
	// Recovery is from the kill to the moment every invariant held (zero when they never did).
	Recovery   time.Duration       `json:"recovery"`
	Violations []cluster.Invariant `json:"violations,omitempty"`
	Failed     bool                `json:"failed"`
	// KwokResyncs counts pods annotated so kwok would replay a stage it dropped.
	KwokResyncs int `json:"kwokResyncs,omitempty"`
	// Stage is where the round got to.
	Stage string `json:"stage"`
}

// results collects the rounds in the order they ran.
var results []roundResult

func (r roundResult) line() string {
	outcome := "ok"
	switch {
	case len(r.Violations) > 0 && r.Stage == stageSetup:
		outcome = fmt.Sprintf("VIOLATION %v in the setup, before any fault", r.Violations)
	case len(r.Violations) > 0:
		outcome = fmt.Sprintf("VIOLATION %v", r.Violations)
	case r.Failed:
		outcome = "FAILED in stage " + r.Stage + " (see the spec's failure)"
	}
	measured := func(d time.Duration, from string) string {
		if stageReached(r.Stage, from) {
			return fmt.Sprintf("%.2fs", d.Seconds())
		}
		return "-"
	}
	recovery := "-"
	if r.Recovery > 0 {
		recovery = fmt.Sprintf("%.1fs", r.Recovery.Seconds())
	}
	progress := ""
	if r.KwokResyncs > 0 {
		progress += fmt.Sprintf("  [kwok resync: %d pods]", r.KwokResyncs)
	}
	if r.Progress != "" {
		progress += "  [at the kill: " + r.Progress + "]"
	}
	return fmt.Sprintf("ROUND %-23s %2d  phase %-9s  delay %6s  outage %.1fs  restart %6s  recovery %6s  %s%s",
		r.Fault, r.Round, r.Phase, measured(r.Delay, stageFault), r.Outage.Seconds(), measured(r.Restart, stageRecovery), recovery, outcome, progress)
}

// stageReached reports whether stage is at or past from.
func stageReached(stage, from string) bool {
	order := []string{stageSetup, stagePhase, stageFault, stageRecovery, stageDone}
	return slices.Index(order, stage) >= slices.Index(order, from)
}

// summarize prints, per fault, the rounds run, the rounds with violations or
// failures, and the recovery times (kill to every invariant holding).
func summarize(rs []roundResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fault suite summary (seed %d)\n", seed)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "fault\trounds\tviolations\tfailed\trecovery min\tmedian\tmax")
	var faults []string
	for _, r := range rs {
		if !slices.Contains(faults, r.Fault) {
			faults = append(faults, r.Fault)
		}
	}
	total := struct{ rounds, violations, failed int }{}
	for _, f := range faults {
		var rec []time.Duration
		n, violations, failed := 0, 0, 0
		for _, r := range rs {
			if r.Fault != f {
				continue
			}
			n++
			if len(r.Violations) > 0 {
				violations++
			}
			if r.Failed {
				failed++
			}
			if r.Recovery > 0 {
				rec = append(rec, r.Recovery)
			}
		}
		total.rounds, total.violations, total.failed = total.rounds+n, total.violations+violations, total.failed+failed
		minS, medS, maxS := "-", "-", "-"
		if len(rec) > 0 {
			slices.Sort(rec)
			minS, medS, maxS = secs(rec[0]), secs(rec[len(rec)/2]), secs(rec[len(rec)-1])
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\n", f, n, violations, failed, minS, medS, maxS)
	}
	fmt.Fprintf(tw, "all\t%d\t%d\t%d\t\t\t\n", total.rounds, total.violations, total.failed)
	_ = tw.Flush()
	return b.String()
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// writeResults writes the summary and every round (JSON) next to the cluster's state.
func writeResults(base, summary string) {
	var lines []string
	for _, r := range results {
		lines = append(lines, r.line())
	}
	_ = os.WriteFile(base+".txt", []byte(strings.Join(lines, "\n")+"\n\n"+summary), 0o644)
	if data, err := json.MarshalIndent(results, "", "  "); err == nil {
		_ = os.WriteFile(base+".json", data, 0o644)
	}
	fmt.Printf("rounds and summary written to %s.txt and %s.json\n", base, base)
}
