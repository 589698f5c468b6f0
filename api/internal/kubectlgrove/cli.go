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

package kubectlgrove

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	groveclient "github.com/grove-project/grove/api/client/clientset/versioned"
)

// Usage is the plugin's help text.
const Usage = `kubectl grove explains Grove's PodCliqueSets.

Usage:
  kubectl grove status PODCLIQUESET [-n NAMESPACE]
      The tree PodCliqueSet -> replicas -> scaling groups -> PodCliques -> pods,
      each PodGang's phase and, for whatever is not running, why.
  kubectl grove why pod|podclique|podgang NAME [-n NAMESPACE]
  kubectl grove why KIND/NAME [-n NAMESPACE]
      Why one pod, PodClique (pclq) or PodGang (pg) is not running.

Flags:
  -n, --namespace NAMESPACE   the namespace (default: the kubeconfig context's)
      --kubeconfig FILE       the kubeconfig (default: $KUBECONFIG, ~/.kube/config)
      --context NAME          the kubeconfig context
  -h, --help                  this help
`

// errUsage marks a command line the plugin cannot run; Main exits 2.
var errUsage = errors.New("usage")

// options are the parsed command line.
type options struct {
	namespace, kubeconfig, context string
	args                           []string
	help                           bool
}

// parse reads flags anywhere among the arguments, as kubectl does.
func parse(args []string) (options, error) {
	var o options
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, inline := strings.Cut(a, "=")
		target := map[string]*string{"-n": &o.namespace, "--namespace": &o.namespace, "--kubeconfig": &o.kubeconfig, "--context": &o.context}[name]
		switch {
		case a == "-h" || a == "--help":
			o.help = true
		case target != nil && inline:
			*target = value
		case target != nil && i+1 < len(args):
			i++
			*target = args[i]
		case target != nil:
			return o, fmt.Errorf("%w: flag %s needs a value", errUsage, a)
		case strings.HasPrefix(a, "-") && a != "-":
			return o, fmt.Errorf("%w: unknown flag %s", errUsage, a)
		default:
			o.args = append(o.args, a)
		}
	}
	return o, nil
}

// Main runs the plugin with the command line args (without the program
// name) and returns its exit code: 0 done, 1 failed, 2 bad command line.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args)
	if err == nil && !o.help && len(o.args) == 0 {
		err = fmt.Errorf("%w: no command", errUsage)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n\n%s", err, Usage)
		return 2
	}
	if o.help {
		fmt.Fprint(stdout, Usage)
		return 0
	}
	cmd, err := parseCommand(o.args)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		if errors.Is(err, errUsage) {
			fmt.Fprintf(stderr, "\n%s", Usage)
			return 2
		}
		return 1
	}
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	loading.ExplicitPath = o.kubeconfig
	config := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, &clientcmd.ConfigOverrides{CurrentContext: o.context})
	ns := o.namespace
	if ns == "" {
		if ns, _, err = config.Namespace(); err != nil {
			fmt.Fprintf(stderr, "error: reading the namespace from the kubeconfig: %v\n", err)
			return 1
		}
	}
	cfg, err := config.ClientConfig()
	if err != nil {
		fmt.Fprintf(stderr, "error: reading the kubeconfig: %v\n", err)
		return 1
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	grove, err := groveclient.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	if err := cmd.run(ctx, Clients{Kube: kube, Grove: grove}, ns, time.Now(), stdout); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

// command is one parsed command: status of a PodCliqueSet, or why of one
// object of a kind.
type command struct {
	kind, name string
}

// parseCommand checks the command and its arguments before anything is read.
func parseCommand(args []string) (command, error) {
	switch cmd := args[0]; {
	case cmd == "status" && len(args) == 2:
		return command{name: args[1]}, nil
	case cmd == "why" && (len(args) == 2 || len(args) == 3):
		typed, name := args[1], ""
		if len(args) == 3 {
			name = args[2]
		} else if k, n, ok := strings.Cut(args[1], "/"); ok {
			typed, name = k, n
		} else {
			return command{}, fmt.Errorf("%w: why needs a kind and a name, e.g. why pod NAME or why pg/NAME", errUsage)
		}
		kind, err := kindOf(typed)
		return command{kind: kind, name: name}, err
	case cmd == "status" || cmd == "why":
		return command{}, fmt.Errorf("%w: wrong number of arguments to %s", errUsage, cmd)
	}
	return command{}, fmt.Errorf("%w: unknown command %q", errUsage, args[0])
}

// Run runs one command (args: the command and its arguments) in namespace
// ns, reading with c, and prints its result to out; now is the time ages are
// measured from.
func Run(ctx context.Context, c Clients, ns string, args []string, now time.Time, out io.Writer) error {
	cmd, err := parseCommand(args)
	if err != nil {
		return err
	}
	return cmd.run(ctx, c, ns, now, out)
}

func (cmd command) run(ctx context.Context, c Clients, ns string, now time.Time, out io.Writer) error {
	var tree *node
	if cmd.kind == "" {
		s, err := read(ctx, c, ns, cmd.name, now)
		if err != nil {
			return err
		}
		tree = s.statusTree()
	} else {
		var err error
		if tree, err = why(ctx, c, ns, cmd.kind, cmd.name, now); err != nil {
			return err
		}
	}
	return tree.write(out)
}
