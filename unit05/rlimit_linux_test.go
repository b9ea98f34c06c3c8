package unit05

import (
	"syscall"
	"testing"
)

// limitAddressSpace caps this process's virtual memory at n bytes, so that
// an allocation of terabytes fails at once instead of filling the machine.
func limitAddressSpace(t *testing.T, n uint64) {
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		t.Skipf("cannot cap the address space (%v): skipped", err)
	}
}
