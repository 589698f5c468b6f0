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

package common

import "time"

// Earliest is the sooner of two requeue delays, zero meaning "no requeue":
// a reconcile that waits on several deadlines (an update's progress
// deadline, a terminationDelay, an expectation) comes back at the first.
func Earliest(a, b time.Duration) time.Duration {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

// RetryAfterConflict is how soon a reconcile whose status write met a newer
// stored object comes back: long enough for the cache to catch up with it.
const RetryAfterConflict = 100 * time.Millisecond
