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

package podgang

import (
	"context"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	grovecorev1alpha1 "github.com/grove-project/grove/api/core/v1alpha1"
	groveschedulerv1alpha1 "github.com/grove-project/grove/api/scheduler/v1alpha1"
	"github.com/grove-project/grove/operator/internal/groveerr"
)

// translator turns topology domains into the node label keys of one
// ClusterTopologyBinding. The zero value translates nothing (topology-aware
// scheduling off, or no topology named).
type translator struct {
	name string
	keys map[grovecorev1alpha1.TopologyDomain]string
}

// TopologyName is the ClusterTopologyBinding a PodCliqueSet's constraints refer to:
// the first name set on the PodCliqueSet, a scaling group or a clique (the
// webhook makes them agree).
func TopologyName(pcs *grovecorev1alpha1.PodCliqueSet) string {
	tmpl := &pcs.Spec.Template
	if tc := tmpl.TopologyConstraint; tc != nil && tc.TopologyName != "" {
		return tc.TopologyName
	}
	for i := range tmpl.PodCliqueScalingGroupConfigs {
		if tc := tmpl.PodCliqueScalingGroupConfigs[i].TopologyConstraint; tc != nil && tc.TopologyName != "" {
			return tc.TopologyName
		}
	}
	for i := range tmpl.Cliques {
		if tc := tmpl.Cliques[i].TopologyConstraint; tc != nil && tc.TopologyName != "" {
			return tc.TopologyName
		}
	}
	return ""
}

func (o operator) loadTopology(ctx context.Context, log logr.Logger, pcs *grovecorev1alpha1.PodCliqueSet) (translator, error) {
	name := TopologyName(pcs)
	if name == "" {
		return translator{}, nil
	}
	ct := &grovecorev1alpha1.ClusterTopologyBinding{}
	if err := o.d.Client.Get(ctx, client.ObjectKey{Name: name}, ct); err != nil {
		if apierrors.IsNotFound(err) {
			log.Info("ClusterTopologyBinding not found; PodGangs get no topology constraints", "clusterTopologyBinding", name)
			return translator{}, nil
		}
		return translator{}, groveerr.Wrap(err, "ERR_GET_CLUSTERTOPOLOGY", groveerr.OperationSync, "reading ClusterTopologyBinding "+name)
	}
	t := translator{name: name, keys: map[grovecorev1alpha1.TopologyDomain]string{}}
	for _, l := range ct.Spec.Levels {
		t.keys[l.Domain] = l.Key
	}
	return t, nil
}

// translate returns the PodGang form of a constraint; domains the topology
// does not define are dropped, and nothing left means no constraint.
func (t translator) translate(tc *grovecorev1alpha1.TopologyConstraint) *groveschedulerv1alpha1.TopologyConstraint {
	if tc == nil || tc.Pack == nil || t.keys == nil {
		return nil
	}
	pack := &groveschedulerv1alpha1.TopologyPackConstraint{}
	if d := tc.Pack.Required; d != nil {
		if k, ok := t.keys[*d]; ok {
			pack.Required = &k
		}
	}
	if d := tc.Pack.Preferred; d != nil {
		if k, ok := t.keys[*d]; ok {
			pack.Preferred = &k
		}
	}
	if pack.Required == nil && pack.Preferred == nil {
		return nil
	}
	return &groveschedulerv1alpha1.TopologyConstraint{PackConstraint: pack}
}
