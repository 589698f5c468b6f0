//go:build e2e

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

package e2e

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// The chart runs two grove-operator replicas (leader-elected, every one
// serving the webhooks behind the grove-operator Service). Here both run as
// processes of the local cluster, behind a small TCP forwarder on the
// webhook URL the chart registered, which sends each connection to a replica
// that accepts it, as the Service sends it to a ready endpoint.

// operatorLease is the operator's leader-election Lease (chart defaults).
var operatorLease = types.NamespacedName{Namespace: "grove-system", Name: "grove-operator-leader-election"}

// operatorReplica is one grove-operator process this spec started.
type operatorReplica struct {
	name                                 string
	webhookPort, healthPort, metricsPort int
	cmd                                  *exec.Cmd
	exited                               chan struct{}
	logPath                              string
}

// localClusterEnv reads the ports.env values `hack/local-cluster env` prints.
func localClusterEnv() map[string]string {
	cmd := exec.Command(filepath.Join(repoRoot, "hack", "local-cluster"), "env")
	cmd.Env = append(os.Environ(), "GROVE_LOCAL_DIR="+localDir)
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred())
	env := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	return env
}

func localCluster(args ...string) {
	cmd := exec.Command(filepath.Join(repoRoot, "hack", "local-cluster"), args...)
	cmd.Env = append(os.Environ(), "GROVE_LOCAL_DIR="+localDir)
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "hack/local-cluster %v:\n%s", args, out)
}

// replicaPorts returns the webhook, health and metrics ports of the HA spec's
// replica i: fixed offsets from the local cluster's port base, below the
// kernel's ephemeral range. (Ports the kernel handed out and this spec closed
// again could be taken by any outbound connection of the busy suite before the
// replica bound them, and a replica that cannot bind exits.)
func replicaPorts(env map[string]string, i int) (webhookHealthMetrics [3]int) {
	api, err := strconv.Atoi(env["API_PORT"])
	Expect(err).NotTo(HaveOccurred(), "the local cluster's API_PORT")
	base := api - 443 + 760 + 3*i
	return [3]int{base, base + 1, base + 2}
}

// startReplica runs bin/grove-operator with the local cluster's
// configuration (the one the chart rendered), its own ports and certificate
// directory, and leader election on, as the chart's Deployment runs it.
func startReplica(name string, ports [3]int, base map[string]any) *operatorReplica {
	r := &operatorReplica{name: name, webhookPort: ports[0], healthPort: ports[1], metricsPort: ports[2], exited: make(chan struct{})}
	cfg := map[string]any{}
	b, err := yaml.Marshal(base)
	Expect(err).NotTo(HaveOccurred())
	Expect(yaml.Unmarshal(b, &cfg)).To(Succeed()) // a deep copy
	cfg["leaderElection"] = map[string]any{"enabled": true, "resourceNamespace": operatorLease.Namespace}
	server := cfg["server"].(map[string]any)
	webhooks := server["webhooks"].(map[string]any)
	webhooks["port"] = r.webhookPort
	webhooks["serverCertDir"] = filepath.Join(GinkgoT().TempDir(), "webhook-certs")
	server["healthProbes"] = map[string]any{"bindAddress": "127.0.0.1", "port": r.healthPort}
	server["metrics"] = map[string]any{"bindAddress": "127.0.0.1", "port": r.metricsPort}
	cfg["debugging"] = map[string]any{"enableProfiling": false}
	out, err := yaml.Marshal(cfg)
	Expect(err).NotTo(HaveOccurred())
	cfgPath := filepath.Join(GinkgoT().TempDir(), "operator.yaml")
	Expect(os.WriteFile(cfgPath, out, 0o600)).To(Succeed())

	r.logPath = filepath.Join(localDir, "logs", "grove-operator-ha-"+name+".log")
	logFile, err := os.Create(r.logPath)
	Expect(err).NotTo(HaveOccurred())
	r.cmd = exec.Command(filepath.Join(repoRoot, "bin", "grove-operator"), "--config="+cfgPath)
	r.cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(localDir, "kubeconfig-grove-operator"), "POD_NAMESPACE=grove-system")
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	Expect(r.cmd.Start()).To(Succeed())
	go func() {
		_ = r.cmd.Wait()
		_ = logFile.Close()
		close(r.exited)
	}()
	DeferCleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.exited
	})
	return r
}

// ready fails while the replica's /readyz does, with the end of its log; a
// replica that exited stops the wait at once.
func (r *operatorReplica) ready() error {
	select {
	case <-r.exited:
		return StopTrying(fmt.Sprintf("grove-operator replica %s exited:\n%s", r.name, r.logTail()))
	default:
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz?verbose", r.healthPort))
	if err != nil {
		return fmt.Errorf("%s readyz: %w; its log ends:\n%s", r.name, err, r.logTail())
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s readyz %d: %s; its log ends:\n%s", r.name, resp.StatusCode, b, r.logTail())
	}
	return nil
}

// logTail is the last 30 lines of the replica's log.
func (r *operatorReplica) logTail() string {
	b, err := os.ReadFile(r.logPath)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}

// leads reads controller-runtime's leader_election_master_status gauge from
// the replica's authenticated /metrics.
func (r *operatorReplica) leads() (bool, error) {
	body, err := metricsScraper().Get(fmt.Sprintf("https://127.0.0.1:%d/metrics", r.metricsPort))
	if err != nil {
		return false, err
	}
	defer func() { _ = body.Close() }()
	v, err := sumSamples(body, "leader_election_master_status")
	return v == 1, err
}

// sumSamples is the sum of the samples of a metric in Prometheus' text
// format whose labels contain every one of labels (each `name="value"`).
func sumSamples(r io.Reader, metric string, labels ...string) (float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	total := 0.0
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, metric+"{") || slices.ContainsFunc(labels, func(label string) bool { return !strings.Contains(l, label) }) {
			continue
		}
		f := strings.Fields(l)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("parsing %q: %w", l, err)
		}
		total += v
	}
	return total, sc.Err()
}

// servingCertSerial is the serial number of the certificate a replica's
// webhook server presents.
func (r *operatorReplica) servingCertSerial() (string, error) {
	// Verification is off: this only reads which certificate the replica presents.
	conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.webhookPort), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close() }()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.String(), nil
}

// forwarder accepts on addr and pipes each connection to the preferred
// backend, or when that one refuses, to the next that accepts (as the Service
// routes to a ready endpoint). It counts connections per backend.
type forwarder struct {
	ln        net.Listener
	backends  []int
	preferred atomic.Int32
	mu        sync.Mutex
	served    map[int]int
	open      map[net.Conn]struct{}
}

func startForwarder(addr string, backends ...int) *forwarder {
	ln, err := net.Listen("tcp", addr)
	Expect(err).NotTo(HaveOccurred(), "listening on the webhook URL's %s (is the cluster's own grove-operator stopped?)", addr)
	f := &forwarder{ln: ln, backends: backends, served: map[int]int{}, open: map[net.Conn]struct{}{}}
	go f.serve()
	DeferCleanup(func() {
		_ = ln.Close()
		f.reset()
	})
	return f
}

// prefer sends new connections to port first and closes the open ones, so
// the API server's next webhook call connects anew, to port.
func (f *forwarder) prefer(port int) {
	f.preferred.Store(int32(port))
	f.reset()
}

func (f *forwarder) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.open {
		_ = c.Close()
	}
}

func (f *forwarder) serve() {
	for {
		in, err := f.ln.Accept()
		if err != nil {
			return
		}
		go f.pipe(in)
	}
}

func (f *forwarder) pipe(in net.Conn) {
	defer func() { _ = in.Close() }()
	order := append([]int{int(f.preferred.Load())}, f.backends...)
	for _, port := range order {
		if port == 0 {
			continue
		}
		out, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err != nil {
			continue // that replica is gone: try the next
		}
		f.mu.Lock()
		f.served[port]++
		f.open[in] = struct{}{}
		f.mu.Unlock()
		done := make(chan struct{}, 2)
		go func() { _, _ = io.Copy(out, in); done <- struct{}{} }()
		go func() { _, _ = io.Copy(in, out); done <- struct{}{} }()
		<-done
		_ = out.Close()
		f.mu.Lock()
		delete(f.open, in)
		f.mu.Unlock()
		return
	}
}

func (f *forwarder) connections(port int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.served[port]
}

var _ = Describe("grove-operator high availability", Serial, func() {
	It("keeps admitting and reconciling PodCliqueSets when the leader of two replicas is killed", func() {
		env := localClusterEnv()
		webhookAddr := "127.0.0.1:" + env["OP_WEBHOOK_PORT"]
		base := map[string]any{}
		b, err := os.ReadFile(filepath.Join(localDir, "config", "operator.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(yaml.Unmarshal(b, &base)).To(Succeed())

		By("stopping the local cluster's single grove-operator; it is started again afterwards")
		localCluster("kill", "grove-operator")
		DeferCleanup(func() { localCluster("start", "grove-operator") })

		a, c := startReplica("a", replicaPorts(env, 0), base), startReplica("b", replicaPorts(env, 1), base)
		replicas := []*operatorReplica{a, c}
		fwd := startForwarder(webhookAddr, a.webhookPort, c.webhookPort)

		By("both replicas become ready, serve one certificate, and one of them leads")
		Eventually(func(g Gomega) {
			for _, r := range replicas {
				g.Expect(r.ready()).To(Succeed())
			}
		}).WithTimeout(3 * time.Minute).Should(Succeed())
		serialA, err := a.servingCertSerial()
		Expect(err).NotTo(HaveOccurred())
		serialB, err := c.servingCertSerial()
		Expect(err).NotTo(HaveOccurred())
		Expect(serialA).To(Equal(serialB), "the replicas serve different certificates")

		var leader, survivor *operatorReplica
		Eventually(func(g Gomega) {
			la, err := a.leads()
			g.Expect(err).NotTo(HaveOccurred())
			lb, err := c.leads()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(la).NotTo(Equal(lb), "exactly one replica leads (a %v, b %v)", la, lb)
			leader, survivor = a, c
			if lb {
				leader, survivor = c, a
			}
		}).WithTimeout(2 * time.Minute).Should(Succeed())
		lease := &coordinationv1.Lease{}
		Expect(k8s.Get(ctx, operatorLease, lease)).To(Succeed())
		oldHolder := ptr.Deref(lease.Spec.HolderIdentity, "")

		By("the API server's webhook calls go to the leader before the kill")
		fwd.prefer(leader.webhookPort)
		ns := newNamespace("ha")
		warm := createPCS("test/testdata/e2e/update-two-cliques.yaml", ns)
		Expect(warm.Spec.Template.Cliques[0].Spec.RoleName).To(Equal("frontend"), "the defaulting webhook did not run")
		Expect(k8s.Delete(ctx, warm)).To(Succeed())
		Expect(fwd.connections(leader.webhookPort)).To(BeNumerically(">", 0))

		By(fmt.Sprintf("kill -9 the leader (%s), then a PodCliqueSet 1 s later", leader.name))
		// Counted before the kill: the API server may reconnect to the
		// survivor within that second for other webhook calls (the
		// authorizer's, for the garbage collector deleting the warm-up set's
		// children) and send the PodCliqueSet's admission on that connection.
		servedBefore := fwd.connections(survivor.webhookPort)
		Expect(leader.cmd.Process.Kill()).To(Succeed())
		killed := time.Now()
		<-leader.exited
		time.Sleep(time.Second)
		pcs := loadPCS("test/testdata/e2e/update-two-cliques.yaml")
		pcs.Namespace, pcs.Name = ns, "after-kill"
		Expect(k8s.Create(ctx, pcs)).To(Succeed(), "the surviving replica did not admit the PodCliqueSet")
		admitted := time.Since(killed)
		Expect(pcs.Spec.Template.Cliques[0].Spec.RoleName).To(Equal("frontend"), "the defaulting webhook did not run")
		Expect(pcs.Spec.Template.TerminationDelay).NotTo(BeNil(), "the defaulting webhook did not run")
		Expect(fwd.connections(survivor.webhookPort)).To(BeNumerically(">", servedBefore), "the admission calls did not reach the surviving replica")

		By("the survivor takes the lease and reconciles it to Running pods")
		Eventually(func(g Gomega) {
			leads, err := survivor.leads()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(leads).To(BeTrue())
			l := &coordinationv1.Lease{}
			g.Expect(k8s.Get(ctx, operatorLease, l)).To(Succeed())
			g.Expect(ptr.Deref(l.Spec.HolderIdentity, "")).NotTo(Equal(oldHolder))
		}).WithTimeout(2 * time.Minute).Should(Succeed())
		tookOver := time.Since(killed)
		expectRunningLayout(ns, "after-kill", map[string]int{"after-kill-0-frontend": 4, "after-kill-0-decode": 3}, fakeNodeName)
		running := time.Since(killed)
		AddReportEntry("operator failover", fmt.Sprintf("after kill -9 of the leader: PodCliqueSet admitted at %s, lease taken at %s, pods Running at %s",
			admitted.Round(time.Millisecond), tookOver.Round(time.Millisecond), running.Round(time.Millisecond)))
		select {
		case <-survivor.exited:
			Fail("the surviving replica exited")
		default:
		}
		Expect(survivor.ready()).To(Succeed())
	})
})
