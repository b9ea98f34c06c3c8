package unit02

import (
	"math"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// eps32 is float32's unit roundoff, 2⁻²⁴: the relative error of one
// correctly rounded operation.
const eps32 = 1.0 / (1 << 24)

// eachSIMD runs f once for every vector instruction set this CPU supports,
// from plain Go up, with the package's simd level lowered accordingly, so
// the assembly paths and the pure-Go path are all tested. Code that ignores
// simd simply runs the same way each time.
func eachSIMD(t *testing.T, f func(t *testing.T)) {
	saved := simd
	defer func() { simd = saved }()
	for lvl := unit00.SIMDNone; lvl <= saved; lvl++ {
		simd = lvl
		t.Run(lvl.String(), f)
	}
}

// tensorOf makes a contiguous F32 tensor from float32 data.
func tensorOf(t *testing.T, data []float32, dims ...int) unit01.Tensor {
	t.Helper()
	x, err := unit01.FromSlice(data, unit01.MustShape(dims...))
	if err != nil {
		t.Fatalf("FromSlice: %v", err)
	}
	return x
}

// valuesOf reads every element of a (possibly strided) tensor in row-major
// order, as float64.
func valuesOf(x unit01.Tensor) []float64 {
	s := x.Shape()
	out := make([]float64, 0, s.Numel())
	if s.Numel() == 0 {
		return out
	}
	idx := make([]int, s.Rank())
	for {
		out = append(out, float64(x.At(idx...)))
		a := s.Rank() - 1
		for ; a >= 0; a-- {
			if idx[a]++; idx[a] < s.Dim(a) {
				break
			}
			idx[a] = 0
		}
		if a < 0 {
			return out
		}
	}
}

func dimsOf(s unit01.Shape) []int {
	d := make([]int, s.Rank())
	for i := range d {
		d[i] = s.Dim(i)
	}
	return d
}

// lengths are the row lengths every kernel is tried on: 1, lengths that are
// not multiples of 8 or 16 (the assembly tails), and a few longer rows.
var lengths = []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 100, 255, 257, 1000, 4095, 4096, 4097}

// allFinite reports the first non-finite value of x, if any.
func allFinite(x []float32) (int, bool) {
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return i, false
		}
	}
	return -1, true
}

// mustCheckPanic runs f, which breaks a documented precondition, and fails
// unless it panics through unit00.Check. A runtime error (an index out of
// range) does not count: it means the arguments were not checked before use,
// and a call whose bad slice happens to be the longer one would run on and
// silently compute the wrong thing. It reports whether f panicked.
func mustCheckPanic(t *testing.T, what string, f func()) bool {
	t.Helper()
	v, panicked := oracle.Panics(f)
	switch s, _ := v.(string); {
	case !panicked:
		t.Errorf("%s did not panic: check every argument with unit00.Check before touching the data", what)
	case !strings.HasPrefix(s, "check failed"):
		t.Errorf("%s panicked with %v, want a panic from unit00.Check: check every length first, do not rely on an index going out of range", what, v)
	}
	return panicked
}

// noPanic runs f, which returns an error, and turns a panic into a test
// failure that names the call: bad input must come back as an error, and a
// valid call must not panic.
func noPanic(t *testing.T, what string, f func() error) error {
	t.Helper()
	var err error
	if v, panicked := oracle.Panics(func() { err = f() }); panicked {
		t.Fatalf("%s panicked: %v", what, v)
	}
	return err
}
