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
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/grove-project/grove/test/cluster"
)

var (
	flagRounds = flag.Int("faults.rounds", 5, "rounds per fault; a fault's rounds walk create, scale-out, scale-in, update, delete from a seeded start")
	flagFaults = flag.String("faults.faults", joinComponents(defaultFaults), "comma-separated components to kill")
	flagSeed   = flag.Int64("faults.seed", 0, "seed of the random moments and outages; 0 takes one from the clock")
	flagPods   = flag.Int("faults.pods", 200, "pods of the PodCliqueSet once created (4 per replica); scale-out adds half as many, scale-in removes them")
)

// suiteLabel marks the namespaces the suite creates, so a later run removes
// what an interrupted one left.
const suiteLabel = "faults.grove.io/suite"

var (
	ctx = context.Background()
	// local is the local cluster; k8s its admin client.
	local *cluster.Local
	k8s   client.Client
	// repoRoot is the repository checkout the suite runs from.
	repoRoot string
	// seed is the seed this run uses.
	seed int64
)

func joinComponents(cs []cluster.Component) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = string(c)
	}
	return strings.Join(names, ",")
}

func TestFaults(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyPollingInterval(250 * time.Millisecond)
	_, thisFile, _, _ := runtime.Caller(0)
	repoRoot = filepath.Clean(filepath.Join(filepath.Dir(thisFile), "..", ".."))
	seed = *flagSeed
	if seed == 0 {
		seed = time.Now().UnixNano() % 1_000_000_000
	}
	fmt.Printf("fault suite: seed %d (replay with SEED=%d), %d rounds per fault, faults %s, %d pods\n",
		seed, seed, *flagRounds, *flagFaults, *flagPods)
	RunSpecs(t, "Grove fault suite")
}

var _ = BeforeSuite(func() {
	var err error
	local, err = cluster.Connect(repoRoot, os.Getenv("GROVE_LOCAL_DIR"), 200, 400)
	Expect(err).NotTo(HaveOccurred())
	k8s = local.Client

	leftovers := &corev1.NamespaceList{}
	Expect(k8s.List(ctx, leftovers, client.HasLabels{suiteLabel})).To(Succeed())
	for i := range leftovers.Items {
		By("deleting namespace " + leftovers.Items[i].Name + " left by an earlier run")
		deleteNamespace(leftovers.Items[i].Name)
	}
})

var _ = AfterSuite(func() {
	if len(results) == 0 {
		return
	}
	summary := summarize(results)
	fmt.Print("\n" + summary)
	if local != nil {
		writeResults(filepath.Join(local.Dir, "fault-results"), summary)
	}
})
