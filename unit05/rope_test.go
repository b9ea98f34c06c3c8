package unit05

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// ropeTol: the tables hold float32 roundings of exact cos and sin, and a
// rotation adds two float32 products, so each output is within a few ulps
// of the float64 rotation of the same float32 input.
var ropeTol = oracle.Tol{Atol: 1e-6, Rtol: 1e-6}

func TestC5_2_Rope(t *testing.T) {
	g := oracle.NewRand(53)
	for _, style := range []RopeStyle{RopeNorm, RopeNeox} {
		for _, hd := range []int{2, 8, 64, 128} {
			for _, base := range []float64{10000, 500000} {
				const maxPos = 4096
				r := NewRope(hd, maxPos, base, style)
				// Position 0, small ones, and large ones, where an angle
				// computed in float32 has lost its fraction.
				for _, pos := range []int{0, 1, 2, 7, 100, 1000, 4095} {
					x := g.Normal(hd, 0, 1)
					want := oracle.Float64s(x)
					oracle.Rope(want, pos, base, style == RopeNeox)
					r.Rotate(x, pos)
					oracle.AssertClose(t, fmt.Sprintf("Rope(%v, headDim %d, base %g).Rotate at position %d", style, hd, base, pos), x, want, ropeTol)
				}
			}
		}
	}
	r := NewRope(8, 10, 10000, RopeNorm)
	if _, panicked := oracle.Panics(func() { r.Rotate(make([]float32, 8), 10) }); !panicked {
		t.Errorf("Rotate at a position beyond the table did not panic")
	}
}

func TestC5_2_RotateHeads(t *testing.T) {
	g := oracle.NewRand(54)
	const hd, heads, T, pos0 = 16, 3, 5, 9
	for _, style := range []RopeStyle{RopeNorm, RopeNeox} {
		r := NewRope(hd, 32, 10000, style)
		x := randMat(g, T, heads*hd)
		want := make([]float64, 0, T*heads*hd)
		for i := range T {
			for h := range heads {
				v := oracle.Float64s(x.Row(i)[h*hd : (h+1)*hd])
				oracle.Rope(v, pos0+i, 10000, style == RopeNeox)
				want = append(want, v...)
			}
		}
		r.RotateHeads(x, pos0)
		oracle.AssertCloseShape(t, fmt.Sprintf("Rope(%v).RotateHeads of %d rows × %d heads from position %d", style, T, heads, pos0), dense(x), want, []int{T, heads, hd}, ropeTol)
		checkPadding(t, "RotateHeads", x)
	}
	var empty unit03.Mat
	NewRope(4, 4, 10000, RopeNorm).RotateHeads(empty, 0) // no rows: nothing to do, no panic
}
