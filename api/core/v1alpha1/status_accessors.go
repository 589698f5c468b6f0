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

package v1alpha1

// Accessors for the operation record every Grove object keeps in its status,
// so one status recorder can serve all controllers.

// GetLastOperation returns status.lastOperation.
func (p *PodCliqueSet) GetLastOperation() *LastOperation { return p.Status.LastOperation }

// SetLastOperation sets status.lastOperation.
func (p *PodCliqueSet) SetLastOperation(op *LastOperation) { p.Status.LastOperation = op }

// SetLastErrors sets status.lastErrors.
func (p *PodCliqueSet) SetLastErrors(errs []LastError) { p.Status.LastErrors = errs }

// GetLastOperation returns status.lastOperation.
func (p *PodClique) GetLastOperation() *LastOperation { return p.Status.LastOperation }

// SetLastOperation sets status.lastOperation.
func (p *PodClique) SetLastOperation(op *LastOperation) { p.Status.LastOperation = op }

// SetLastErrors sets status.lastErrors.
func (p *PodClique) SetLastErrors(errs []LastError) { p.Status.LastErrors = errs }

// GetLastOperation returns status.lastOperation.
func (p *PodCliqueScalingGroup) GetLastOperation() *LastOperation { return p.Status.LastOperation }

// SetLastOperation sets status.lastOperation.
func (p *PodCliqueScalingGroup) SetLastOperation(op *LastOperation) { p.Status.LastOperation = op }

// SetLastErrors sets status.lastErrors.
func (p *PodCliqueScalingGroup) SetLastErrors(errs []LastError) { p.Status.LastErrors = errs }

// GetLastErrors returns status.lastErrors.
func (p *PodCliqueSet) GetLastErrors() []LastError { return p.Status.LastErrors }

// GetLastErrors returns status.lastErrors.
func (p *PodClique) GetLastErrors() []LastError { return p.Status.LastErrors }

// GetLastErrors returns status.lastErrors.
func (p *PodCliqueScalingGroup) GetLastErrors() []LastError { return p.Status.LastErrors }
