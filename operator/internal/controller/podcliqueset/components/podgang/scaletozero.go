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

// scaledToZero reports whether the standalone PodClique exists with zero
// replicas. Its pod group leaves the base PodGang: a group the scheduler
// must place minReplicas pods of, but that has none, would hold the whole
// gang back. A PodClique not created yet takes its template replicas, which
// are at least 1.
func scaledToZero(st *state, pclqName string) bool {
	p, ok := st.pclqs[pclqName]
	return ok && p.DeletionTimestamp == nil && p.Spec.Replicas == 0
}
