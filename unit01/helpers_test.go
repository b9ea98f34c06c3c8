package unit01

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/llmforge/forge/oracle"
)

// values reads every element of t in row-major index order through At.
func values(t Tensor) []float64 {
	s := t.Shape()
	out := make([]float64, 0, s.Numel())
	if s.Numel() == 0 {
		return out
	}
	idx := make([]int, s.Rank())
	for {
		out = append(out, float64(t.At(idx...)))
		a := s.Rank() - 1
		for ; a >= 0; a-- {
			idx[a]++
			if idx[a] < s.Dim(a) {
				break
			}
			idx[a] = 0
		}
		if a < 0 {
			return out
		}
	}
}

// dims returns the extents of s as a slice.
func dims(s Shape) []int {
	d := make([]int, s.Rank())
	for i := range d {
		d[i] = s.Dim(i)
	}
	return d
}

// iota returns a contiguous F32 tensor of the given shape holding 0, 1, 2, …
func iota(t *testing.T, shape ...int) Tensor {
	t.Helper()
	x, err := FromSlice(float32s(oracle.Iota(oracle.Numel(shape))), MustShape(shape...))
	if err != nil {
		t.Fatalf("FromSlice(0…%d, %v): %v", oracle.Numel(shape)-1, shape, err)
	}
	return x
}

func float32s(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// sameValues fails t unless view shows exactly want (row-major) with shape wantShape.
func sameValues(t *testing.T, what string, view Tensor, want []float64, wantShape []int) {
	t.Helper()
	if got := dims(view.Shape()); fmt.Sprint(got) != fmt.Sprint(wantShape) {
		t.Fatalf("%s: shape %v, want %v", what, got, wantShape)
	}
	got := values(view)
	st := view.Strides()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: element %s = %v, want %v (offset %d, strides %v: check how the view maps an index to storage)",
				what, oracle.FormatIndex(i, wantShape), got[i], want[i], view.Offset(), st[:view.Shape().Rank()])
		}
	}
}

// addr returns the address of the first byte of b.
func addr(b []byte) uintptr {
	if cap(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

// checkPanics fails t unless f panics through unit00.Check, whose panic value
// reads "check failed at …". A bad argument must be caught by the check the
// doc comment promises, with a message that says what is wrong; a runtime
// error from indexing with it later (or no panic at all, for an index that
// happens to land in memory) is not that.
func checkPanics(t *testing.T, what string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	if !panicked {
		t.Errorf("%s did not panic; it must panic through unit00.Check", what)
		return
	}
	if s, ok := v.(string); !ok || !strings.HasPrefix(s, "check failed at ") {
		t.Errorf("%s panicked with %q; want a panic from unit00.Check (\"check failed at …\"): check the argument before using it", what, fmt.Sprint(v))
	}
}
