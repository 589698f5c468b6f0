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

// Package memlimit sets the Go runtime's soft memory limit from the memory
// limit of the container the process runs in. Without it the collector lets
// the heap grow to twice what survived the last collection, whatever the
// container allows, and a burst of watch events can take the process past
// its limit, where the kernel kills it. With a soft limit the collector runs
// earlier, and returns freed memory to the system sooner, as the limit nears.
package memlimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
)

// Share is the part of the container's limit given to the Go runtime; the
// rest is left for what the runtime does not count (mapped files, C code)
// and for the collector's reaction time.
const Share = 0.9

// unlimited is the largest value cgroup v1 reports for "no limit" (the
// maximum int64 rounded down to the page size) or above.
const unlimited = int64(1) << 62

// Apply sets the runtime's soft memory limit to Share of the cgroup memory
// limit, unless GOMEMLIMIT is set (the runtime applied it already) or no
// limit is found. It returns the limit set, 0 if none.
func Apply(log logr.Logger) int64 {
	return apply(log, os.Getenv, os.DirFS("/"))
}

func apply(log logr.Logger, getenv func(string) string, root fs.FS) int64 {
	if v := getenv("GOMEMLIMIT"); v != "" {
		log.Info("Go memory limit taken from GOMEMLIMIT", "GOMEMLIMIT", v)
		return 0
	}
	limit, err := CgroupLimit(root)
	if err != nil {
		log.Info("No container memory limit found; the Go memory limit stays unset", "reason", err.Error())
		return 0
	}
	soft := int64(float64(limit) * Share)
	debug.SetMemoryLimit(soft)
	log.Info("Go memory limit set from the container's", "containerLimitBytes", limit, "goMemoryLimitBytes", soft)
	return soft
}

// ErrNoLimit says the process's cgroup has no memory limit.
var ErrNoLimit = errors.New("the cgroup sets no memory limit")

// CgroupLimit reads the memory limit of the process's cgroup from root (the
// file system's root): cgroup v2's memory.max or cgroup v1's
// memory.limit_in_bytes, under the path /proc/self/cgroup names, or at the
// hierarchy's root as a container with its own cgroup namespace sees it.
func CgroupLimit(root fs.FS) (int64, error) {
	own, err := fs.ReadFile(root, "proc/self/cgroup")
	if err != nil {
		return 0, fmt.Errorf("reading /proc/self/cgroup: %w", err)
	}
	v2, v1 := cgroupPaths(own)
	var candidates []string
	if v2 != "" {
		candidates = append(candidates, path.Join("sys/fs/cgroup", v2, "memory.max"), "sys/fs/cgroup/memory.max")
	}
	if v1 != "" {
		candidates = append(candidates, path.Join("sys/fs/cgroup/memory", v1, "memory.limit_in_bytes"), "sys/fs/cgroup/memory/memory.limit_in_bytes")
	}
	candidates = slices.Compact(candidates)
	for _, f := range candidates {
		raw, err := fs.ReadFile(root, f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("reading /%s: %w", f, err)
		}
		return parseLimit(string(bytes.TrimSpace(raw)), f)
	}
	return 0, fmt.Errorf("no memory controller file among %v", candidates)
}

// cgroupPaths returns the process's cgroup v2 path and its cgroup v1 memory
// controller path from the content of /proc/self/cgroup.
func cgroupPaths(content []byte) (v2, v1 string) {
	s := bufio.NewScanner(bytes.NewReader(content))
	for s.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(s.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = strings.TrimPrefix(parts[2], "/")
			if v2 == "" {
				v2 = "."
			}
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			v1 = strings.TrimPrefix(parts[2], "/")
			if v1 == "" {
				v1 = "."
			}
		}
	}
	return v2, v1
}

func parseLimit(v, file string) (int64, error) {
	if v == "max" {
		return 0, ErrNoLimit
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parsing /%s (%q): %w", file, v, err)
	}
	if n <= 0 || n >= unlimited {
		return 0, ErrNoLimit
	}
	return n, nil
}
