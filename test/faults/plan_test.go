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
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/grove-project/grove/test/cluster"
)

// phase is the work a PodCliqueSet is doing when the fault hits.
type phase string

const (
	phaseCreate   phase = "create"
	phaseScaleOut phase = "scale-out"
	phaseScaleIn  phase = "scale-in"
	phaseUpdate   phase = "update"
	phaseDelete   phase = "delete"
)

// lifecycleOrder is the order of the phases of one PodCliqueSet's life; the
// rounds of a fault walk it from a seeded start, so every phase gets
// ROUNDS/5 rounds.
var lifecycleOrder = []phase{phaseCreate, phaseScaleOut, phaseScaleIn, phaseUpdate, phaseDelete}

// defaultFaults are the components the suite kills, in the order it runs them.
var defaultFaults = []cluster.Component{
	cluster.KubeAPIServer, cluster.Etcd, cluster.GroveOperator, cluster.GroveScheduler, cluster.KubeControllerManager,
}

// Outages last between minOutage and maxOutage.
const (
	minOutage = 1 * time.Second
	maxOutage = 6 * time.Second
)

// round is one fault injected during one phase.
type round struct {
	fault cluster.Component
	// n counts the fault's rounds from 1 to of.
	n, of int
	phase phase
	// injectAt is how much of the phase's pod work is done when the kill comes.
	injectAt float64
	outage   time.Duration
}

// name identifies the round in output and diagnostics.
func (r round) name() string {
	return fmt.Sprintf("%s round %d/%d (%s)", r.fault, r.n, r.of, r.phase)
}

// plan draws every fault's rounds. Each fault has its own random stream,
// derived from the seed and the fault's name, so the same seed replays a
// fault's rounds whichever other faults run.
func plan(seed int64, faults []cluster.Component, rounds int) map[cluster.Component][]round {
	out := map[cluster.Component][]round{}
	for _, f := range faults {
		h := fnv.New64a()
		_, _ = h.Write([]byte(f))
		rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
		start := rng.IntN(len(lifecycleOrder))
		for n := 1; n <= rounds; n++ {
			out[f] = append(out[f], round{
				fault: f, n: n, of: rounds,
				phase:    lifecycleOrder[(start+n-1)%len(lifecycleOrder)],
				injectAt: rng.Float64(),
				outage:   minOutage + time.Duration(rng.Int64N(int64(maxOutage-minOutage))),
			})
		}
	}
	return out
}

// parseFaults reads a comma-separated list of component names.
func parseFaults(list string) ([]cluster.Component, error) {
	var out []cluster.Component
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		c, err := cluster.ParseComponent(name)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no fault in %q", list)
	}
	return out, nil
}
