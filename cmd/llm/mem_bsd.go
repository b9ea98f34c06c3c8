//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "golang.org/x/sys/unix"

// availableMemory is the physical memory (sysctl hw.memsize on macOS,
// hw.physmem64 or hw.physmem on the BSDs): these systems give no figure of
// free memory as simple as Linux's MemAvailable, and a context larger than
// the whole memory certainly does not fit.
func availableMemory() (int64, string) {
	for _, name := range []string{"hw.memsize", "hw.physmem64", "hw.physmem"} {
		if n, err := unix.SysctlUint64(name); err == nil && n > 0 && n < 1<<62 {
			return int64(n), "the physical memory, sysctl " + name
		}
	}
	return fallbackMemory, fallbackSource
}
