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
	"fmt"
	"slices"
	"time"
)

// roundRatios are one round's ratios; 0 where a side was not measured.
type roundRatios struct {
	running, cpu, deletion float64 // Grove / peer
	floor                  peerRatios
	groveGated             float64 // Grove / gated loop, time to Running
	requestsPerPod         float64
}

// peerRatios are the contract floor's times and CPU seconds over the peer's.
type peerRatios struct{ running, cpu, deletion float64 }

func ratiosOf(r roundResult) roundRatios {
	x := roundRatios{
		running:        durationRatio(r.grove.running, r.peer.running),
		cpu:            floatRatio(r.groveCPU, r.peerCPU),
		deletion:       durationRatio(r.grove.deleted, r.peer.deleted),
		groveGated:     durationRatio(r.grove.running, r.gated.running),
		requestsPerPod: r.requestsPerPod,
	}
	x.floor = peerRatios{
		running:  durationRatio(r.floor.running, r.peer.running),
		cpu:      floatRatio(r.floorCPU, r.peerCPU),
		deletion: durationRatio(r.floor.deleted, r.peer.deleted),
	}
	return x
}

func durationRatio(a, b time.Duration) float64 { return floatRatio(a.Seconds(), b.Seconds()) }

func floatRatio(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a / b
}

// reportRounds prints each round's figures and ratios and their range over
// the rounds; with a peer it ends with one line of the Grove / peer ratios'
// medians, e.g. "peer lws: running 0.71x, cpu 0.68x, deletion 0.90x".
func reportRounds(o options, results []roundResult) {
	fmt.Printf("\n## Summary of %d round(s)\n\n", len(results))
	ratios := make([]roundRatios, len(results))
	for i, r := range results {
		ratios[i] = ratiosOf(r)
	}
	if o.peer == "" {
		fmt.Println("| round | Grove: Running | Grove delete | CPU s, all processes | Grove / gated | operator requests per pod |")
		fmt.Println("|---|---|---|---|---|---|")
		for i, r := range results {
			fmt.Printf("| %d | %s | %s | %.1f | %s | %.1f |\n", i+1, secs(r.grove.running), secs(r.grove.deleted), r.groveCPU,
				times(ratios[i].groveGated), r.requestsPerPod)
		}
	} else {
		fmt.Println("| round | first | Grove: Running | LWS: Running | running | Grove CPU s | LWS CPU s | cpu | Grove delete | LWS delete | deletion | Grove / gated | operator requests per pod |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
		for i, r := range results {
			first := "Grove"
			if r.peerFirst {
				first = "LWS"
			}
			x := ratios[i]
			fmt.Printf("| %d | %s | %s | %s | %s | %.1f | %.1f | %s | %s | %s | %s | %s | %.1f |\n", i+1, first,
				secs(r.grove.running), secs(r.peer.running), times(x.running), r.groveCPU, r.peerCPU, times(x.cpu),
				secs(r.grove.deleted), secs(r.peer.deleted), times(x.deletion), times(x.groveGated), r.requestsPerPod)
		}
	}
	pick := func(f func(roundRatios) float64) []float64 {
		out := make([]float64, 0, len(ratios))
		for _, x := range ratios {
			if v := f(x); v > 0 {
				out = append(out, v)
			}
		}
		return out
	}
	gated := pick(func(x roundRatios) float64 { return x.groveGated })
	requests := pick(func(x roundRatios) float64 { return x.requestsPerPod })
	fmt.Printf("\nrange over %d round(s): Grove / gated loop %s, operator API requests per pod %s\n", len(results), spread(gated, "x"), spread(requests, ""))
	if o.peer == "" {
		return
	}
	running := pick(func(x roundRatios) float64 { return x.running })
	cpu := pick(func(x roundRatios) float64 { return x.cpu })
	deletion := pick(func(x roundRatios) float64 { return x.deletion })
	fmt.Printf("range over %d round(s), Grove / LWS: running %s, cpu %s, deletion %s\n", len(results), spread(running, "x"), spread(cpu, "x"), spread(deletion, "x"))
	floorRunning := pick(func(x roundRatios) float64 { return x.floor.running })
	if len(floorRunning) > 0 {
		floorCPU := pick(func(x roundRatios) float64 { return x.floor.cpu })
		floorDeletion := pick(func(x roundRatios) float64 { return x.floor.deletion })
		fmt.Printf("contract floor / %s, medians (ranges): running %.2fx (%s), cpu %.2fx (%s), deletion %.2fx (%s)\n", o.peer,
			median(floorRunning), spread(floorRunning, "x"), median(floorCPU), spread(floorCPU, "x"), median(floorDeletion), spread(floorDeletion, "x"))
	}
	fmt.Printf("median over %d round(s), Grove / LWS:\n", len(results))
	fmt.Printf("peer %s: running %.2fx, cpu %.2fx, deletion %.2fx\n", o.peer, median(running), median(cpu), median(deletion))
}

// times formats a ratio, "–" when it was not measured.
func times(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", v)
}

// spread formats the lowest and highest of vs ("–" for none).
func spread(vs []float64, unit string) string {
	if len(vs) == 0 {
		return "–"
	}
	lo, hi := slices.Min(vs), slices.Max(vs)
	if lo == hi {
		return fmt.Sprintf("%.2f%s", lo, unit)
	}
	return fmt.Sprintf("%.2f–%.2f%s", lo, hi, unit)
}

// median is the middle of vs (the mean of the two middle ones for an even
// count), 0 for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
