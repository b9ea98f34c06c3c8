//go:build linux

package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// availableMemory is what a new allocation can have: MemAvailable of
// /proc/meminfo (free memory plus the caches the kernel can drop, the
// model's mapped pages among them), or, when the process's cgroup sets a
// lower limit (a container), what is left under that limit. It names its
// source for messages.
func availableMemory() (int64, string) {
	avail, source := int64(fallbackMemory), fallbackSource
	if n, ok := meminfo("MemAvailable"); ok {
		avail, source = n, "MemAvailable in /proc/meminfo"
	}
	if limit, ok := cgroupFile("memory.max"); ok {
		used, _ := cgroupFile("memory.current")
		if left := max(limit-used, 0); left < avail {
			avail, source = left, "the cgroup's memory.max less memory.current"
		}
	}
	return avail, source
}

// meminfo reads a field of /proc/meminfo, in bytes.
func meminfo(field string) (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		fields := strings.Fields(rest) // "23005944 kB"
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, false
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		return n << 10, err == nil
	}
	return 0, false
}

// cgroupFile reads a number from the process's cgroup (v2) directory;
// false if there is none, or the file says "max".
func cgroupFile(name string) (int64, bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if path, ok := strings.CutPrefix(line, "0::"); ok {
			v, err := os.ReadFile("/sys/fs/cgroup" + path + "/" + name)
			if err != nil {
				return 0, false
			}
			n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
