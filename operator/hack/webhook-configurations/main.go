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

// Command webhook-configurations prints grove-operator's admission webhook
// configurations as YAML, for an operator the API server reaches by URL (the
// local cluster runs the operator as a process on loopback). They come from the
// same builders the operator's tests check, so the names, paths and policies
// cannot drift from what the operator serves. No caBundle is printed: with
// certProvisionMode auto the operator injects its CA by configuration name.
//
// Usage: go run ./operator/hack/webhook-configurations --url https://127.0.0.1:2750
package main

import (
	"flag"
	"fmt"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/grove-project/grove/operator/internal/webhook/configuration"
)

func main() {
	url := flag.String("url", "", "base URL of the operator's webhook server, e.g. https://127.0.0.1:2750")
	flag.Parse()
	if *url == "" {
		fmt.Fprintln(os.Stderr, "--url is required")
		os.Exit(1)
	}
	labels := map[string]string{"app.kubernetes.io/part-of": "grove", "app.kubernetes.io/component": "webhook"}
	gv := admissionregistrationv1.SchemeGroupVersion.String()
	var objects []any
	for _, m := range configuration.MutatingConfigurations(configuration.URLClientConfig(*url, nil)) {
		m.APIVersion, m.Kind, m.Labels = gv, "MutatingWebhookConfiguration", labels
		objects = append(objects, m)
	}
	for _, v := range configuration.ValidatingConfigurations(configuration.URLClientConfig(*url, nil)) {
		v.APIVersion, v.Kind, v.Labels = gv, "ValidatingWebhookConfiguration", labels
		objects = append(objects, v)
	}
	for _, o := range objects {
		out, err := yaml.Marshal(o)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("---\n%s", out)
	}
}
