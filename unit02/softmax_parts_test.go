package unit02

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// TestC2_4_SoftmaxParts checks the softmax before its division: every
// exponential against float64 e^(x·scale − m), the maximum m, and the
// sum, at every length, for scales that are exact (1, 0.125) and not
// (0.4), and floors below the row's maximum (no effect) and above it (m is
// the floor, every exponential below 1).
func TestC2_4_SoftmaxParts(t *testing.T) {
	eachSIMD(t, func(t *testing.T) {
		for _, n := range lengths {
			for name, x := range logitRows(n) {
				top := math.Inf(-1)
				for _, v := range x {
					top = math.Max(top, float64(v))
				}
				for _, scale := range []float32{1, 0.125, 0.4} {
					rowMax := float32(top * float64(scale))
					for _, floor := range []float32{negInf, rowMax - 3, rowMax + 2} {
						what := fmt.Sprintf("SoftmaxParts(%s, n=%d, scale %g, floor %g)", name, n, scale, floor)
						checkParts(t, what, x, scale, floor, max(rowMax, floor))
					}
				}
			}
		}
	})
}

// checkParts runs SoftmaxParts on x and compares with float64.
func checkParts(t *testing.T, what string, x []float32, scale, floor, wantMax float32) {
	t.Helper()
	dst := make([]float32, len(x))
	m, sum := SoftmaxParts(dst, x, scale, floor)
	if m != wantMax {
		t.Errorf("%s returned max %v, want %v: the largest of floor and every x·scale", what, m, wantMax)
		return
	}
	want := make([]float64, len(x))
	total := 0.0
	for i, v := range x {
		want[i] = math.Exp(float64(v)*float64(scale) - float64(m))
		total += want[i]
	}
	tol := softmaxTol(x, 1/scale)
	oracle.AssertClose(t, what, dst, want, tol)
	if beyond(float64(sum), total, tol.Rtol*total) {
		t.Errorf("%s returned sum %.9g, want %.9g (Σ e^(x·scale − m))", what, sum, total)
	}
}

// TestC2_4_SoftmaxPartsEdges: an empty row and a row of −Inf have no mass
// (zeros, the floor as maximum, sum 0, every stale value in dst cleared),
// the largest entry's exponential is exactly 1, the call works in place,
// and bad arguments panic through unit00.Check before anything is written.
func TestC2_4_SoftmaxPartsEdges(t *testing.T) {
	eachSIMD(t, func(t *testing.T) {
		if m, sum := SoftmaxParts(nil, nil, 1, negInf); m != negInf || sum != 0 {
			t.Errorf("SoftmaxParts of an empty row returned (%v, %v), want (-Inf, 0)", m, sum)
		}
		if m, sum := SoftmaxParts(nil, nil, 1, 2.5); m != 2.5 || sum != 0 {
			t.Errorf("SoftmaxParts of an empty row with floor 2.5 returned (%v, %v), want (2.5, 0)", m, sum)
		}
		for _, n := range []int{1, 5, 17, 100} {
			x, dst := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], dst[i] = negInf, 7
			}
			floor := []float32{negInf, -1, 0, 3}[n%4]
			m, sum := SoftmaxParts(dst, x, 0.5, floor)
			if m != floor || sum != 0 {
				t.Errorf("SoftmaxParts of %d × -Inf with floor %v returned (%v, %v), want (%v, 0): no mass at all", n, floor, m, sum, floor)
			}
			for i, v := range dst {
				if v != 0 {
					t.Errorf("SoftmaxParts of %d × -Inf left dst[%d] = %v, want 0", n, i, v)
					break
				}
			}
		}
		x := oracle.NewRand(47).Normal(33, 0, 4)
		x[20] = 30
		want := make([]float32, len(x))
		wm, ws := SoftmaxParts(want, x, 0.25, negInf)
		if want[20] != 1 {
			t.Errorf("SoftmaxParts gave the largest entry e^0 = %v, want exactly 1", want[20])
		}
		in := append([]float32(nil), x...)
		if m, s := SoftmaxParts(in, in, 0.25, negInf); m != wm || s != ws || !equalSlices(in, want) {
			t.Errorf("SoftmaxParts in place gave (%v, %v, %v), want (%v, %v, %v) as out of place", m, s, in, wm, ws, want)
		}
	})
	for _, c := range []struct {
		what    string
		ndst, n int
		scale   float32
	}{
		{"dst shorter than x", 3, 4, 1},
		{"dst longer than x", 5, 4, 1},
		{"scale 0", 4, 4, 0},
		{"a negative scale", 4, 4, -0.5},
	} {
		dst := []float32{7, 7, 7, 7, 7}[:c.ndst]
		what := "SoftmaxParts with " + c.what
		if !mustCheckPanic(t, what, func() { SoftmaxParts(dst, oracle.NewRand(48).Normal(c.n, 0, 1), c.scale, negInf) }) {
			continue
		}
		for i, v := range dst {
			if v != 7 {
				t.Errorf("%s wrote %v into dst[%d] before it panicked: check the arguments first", what, v, i)
				break
			}
		}
	}
}

func equalSlices(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
