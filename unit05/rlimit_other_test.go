//go:build !linux

package unit05

import "testing"

// limitAddressSpace is Linux only; TestC5_5_AddressableEdge skips
// elsewhere before it is called.
func limitAddressSpace(t *testing.T, n uint64) {
	t.Skip("the address space can be capped on Linux only")
}
