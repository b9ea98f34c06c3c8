//go:build linux

package cuda

import (
	"bytes"
	"testing"
)

// TestSlice: a view starts where it says and its bounds are checked,
// which needs no device.
func TestSlice(t *testing.T) {
	b := Buffer{ptr: 4096, size: 100}
	s := b.Slice(40, 60)
	if s.ptr != 4136 || s.Size() != 60 {
		t.Errorf("Slice(40, 60) of [4096, +100) = [%d, +%d), want [4136, +60)", s.ptr, s.Size())
	}
	for _, c := range [][2]int{{-1, 1}, {0, 101}, {50, 51}, {0, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Slice(%d, %d) of 100 bytes did not panic", c[0], c[1])
				}
			}()
			b.Slice(c[0], c[1])
		}()
	}
}

// TestBytes copies bytes in at an offset (through a Slice) and out again.
func TestBytes(t *testing.T) {
	c := device(t)
	b, err := c.Alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(b)
	in := make([]byte, 64)
	if err := c.CopyInBytes(b, in); err != nil {
		t.Fatal(err)
	}
	if err := c.CopyInBytes(b.Slice(5, 3), []byte{7, 8, 9}); err != nil {
		t.Fatal(err)
	}
	if err := c.CopyInBytes(b.Slice(5, 3), []byte{1, 2, 3, 4}); err == nil {
		t.Error("CopyInBytes of 4 bytes into a view of 3: no error")
	}
	out := make([]byte, 64)
	if err := c.CopyOutBytes(out, b); err != nil {
		t.Fatal(err)
	}
	in[5], in[6], in[7] = 7, 8, 9
	if !bytes.Equal(out, in) {
		t.Errorf("read back %v, want %v", out, in)
	}
}
