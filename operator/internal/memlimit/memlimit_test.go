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

package memlimit

import (
	"errors"
	"math"
	"runtime/debug"
	"testing"
	"testing/fstest"

	"github.com/go-logr/logr"
)

func TestCgroupLimit(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name    string
		files   fstest.MapFS
		want    int64
		noLimit bool
		errText string
	}{
		{
			name: "cgroup v2 in a container's own namespace",
			files: fstest.MapFS{
				"proc/self/cgroup":         file("0::/\n"),
				"sys/fs/cgroup/memory.max": file("1073741824\n"),
			},
			want: 1 << 30,
		},
		{
			name: "cgroup v2 seen from the host: the process's own path",
			files: fstest.MapFS{
				"proc/self/cgroup": file("0::/kubepods.slice/pod42/grove-operator\n"),
				"sys/fs/cgroup/kubepods.slice/pod42/grove-operator/memory.max": file("536870912"),
				"sys/fs/cgroup/memory.max":                                     file("max"),
			},
			want: 512 << 20,
		},
		{
			name: "cgroup v2 without a limit",
			files: fstest.MapFS{
				"proc/self/cgroup":         file("0::/\n"),
				"sys/fs/cgroup/memory.max": file("max\n"),
			},
			noLimit: true,
		},
		{
			name: "cgroup v1 memory controller",
			files: fstest.MapFS{
				"proc/self/cgroup": file("12:cpu,cpuacct:/\n4:memory:/process_api/abc\n0::/\n"),
				"sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": file("314572800\n"),
			},
			want: 300 << 20,
		},
		{
			name: "cgroup v1 without a limit reports the page-rounded maximum",
			files: fstest.MapFS{
				"proc/self/cgroup":                           file("4:memory:/\n"),
				"sys/fs/cgroup/memory/memory.limit_in_bytes": file("9223372036854771712\n"),
			},
			noLimit: true,
		},
		{
			name: "a file that is not a number",
			files: fstest.MapFS{
				"proc/self/cgroup":         file("0::/\n"),
				"sys/fs/cgroup/memory.max": file("lots\n"),
			},
			errText: `parsing /sys/fs/cgroup/memory.max ("lots"): strconv.ParseInt: parsing "lots": invalid syntax`,
		},
		{
			name:    "no memory controller",
			files:   fstest.MapFS{"proc/self/cgroup": file("0::/\n")},
			errText: "no memory controller file among [sys/fs/cgroup/memory.max]",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CgroupLimit(tc.files)
			switch {
			case tc.noLimit:
				if !errors.Is(err, ErrNoLimit) {
					t.Fatalf("CgroupLimit = %d, %v; want ErrNoLimit", got, err)
				}
			case tc.errText != "":
				if err == nil || err.Error() != tc.errText {
					t.Fatalf("CgroupLimit error = %v, want %q", err, tc.errText)
				}
			default:
				if err != nil || got != tc.want {
					t.Fatalf("CgroupLimit = %d, %v; want %d", got, err, tc.want)
				}
			}
		})
	}
}

func TestApply(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	limited := fstest.MapFS{
		"proc/self/cgroup":         &fstest.MapFile{Data: []byte("0::/\n")},
		"sys/fs/cgroup/memory.max": &fstest.MapFile{Data: []byte("1000000000\n")},
	}
	noEnv := func(string) string { return "" }

	if got := apply(logr.Discard(), noEnv, limited); got != 900000000 {
		t.Fatalf("apply = %d, want 900000000 (90%% of the cgroup limit)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 900000000 {
		t.Fatalf("runtime memory limit = %d, want 900000000", got)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	withEnv := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "250MiB"
		}
		return ""
	}
	if got := apply(logr.Discard(), withEnv, limited); got != 0 {
		t.Fatalf("apply with GOMEMLIMIT set = %d, want 0", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("runtime memory limit = %d after GOMEMLIMIT was set; the runtime's own reading must stay", got)
	}

	if got := apply(logr.Discard(), noEnv, fstest.MapFS{"proc/self/cgroup": &fstest.MapFile{Data: []byte("0::/\n")}}); got != 0 {
		t.Fatalf("apply without a cgroup limit = %d, want 0", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("runtime memory limit = %d without a cgroup limit, want none", got)
	}
}
