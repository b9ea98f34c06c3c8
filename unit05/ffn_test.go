package unit05

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

func TestC5_4_FeedForward(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	for _, c := range []Config{configs[0].c, configs[4].c} {
		w, o := testWeights(c, 57)
		g := oracle.NewRand(58)
		for _, T := range []int{1, 9} {
			for _, pool := range []*unit03.Pool{nil, p} {
				x := randMat(g, T, c.Dim)
				out := randMat(g, T, c.Dim)
				gate, up := randMat(g, T, c.FFN), randMat(g, T, c.FFN)
				FeedForward(pool, out, x, &w.Layers[0], gate, up)
				var want []float64
				l := o.Layers[0]
				for i := range T {
					xi := oracle.Float64s(x.Row(i))
					h := make([]float64, c.FFN)
					for j := range h {
						h[j] = oracle.SiLU(dot64(l.Wgate[j*c.Dim:(j+1)*c.Dim], xi)) * dot64(l.Wup[j*c.Dim:(j+1)*c.Dim], xi)
					}
					for j := range c.Dim {
						want = append(want, dot64(l.Wdown[j*c.FFN:(j+1)*c.FFN], h))
					}
				}
				what := fmt.Sprintf("FeedForward, Dim %d, FFN %d, %d rows, %d threads", c.Dim, c.FFN, T, pool.Threads())
				oracle.AssertCloseShape(t, what, dense(out), want, []int{T, c.Dim}, ffnTol)
				checkPadding(t, what, out)
			}
		}
	}
	// Buffers whose rows are not x's, one at a time: FeedForward's own
	// check must refuse each, before a product gets them.
	c := configs[0].c
	w, _ := testWeights(c, 59)
	const T = 4
	x := unit03.NewMat(T, c.Dim)
	for _, bad := range []struct {
		what          string
		out, gate, up unit03.Mat
	}{
		{"gate of 3 rows", unit03.NewMat(T, c.Dim), unit03.NewMat(T-1, c.FFN), unit03.NewMat(T, c.FFN)},
		{"gate of 5 rows", unit03.NewMat(T, c.Dim), unit03.NewMat(T+1, c.FFN), unit03.NewMat(T, c.FFN)},
		{"up of 3 rows", unit03.NewMat(T, c.Dim), unit03.NewMat(T, c.FFN), unit03.NewMat(T-1, c.FFN)},
		{"up of 5 rows", unit03.NewMat(T, c.Dim), unit03.NewMat(T, c.FFN), unit03.NewMat(T+1, c.FFN)},
		{"out of 3 rows", unit03.NewMat(T-1, c.Dim), unit03.NewMat(T, c.FFN), unit03.NewMat(T, c.FFN)},
		{"out of 5 rows", unit03.NewMat(T+1, c.Dim), unit03.NewMat(T, c.FFN), unit03.NewMat(T, c.FFN)},
	} {
		mustPanicIn(t, "FeedForward of x of 4 rows with "+bad.what, "FeedForward", func() { FeedForward(nil, bad.out, x, &w.Layers[0], bad.gate, bad.up) })
	}
}

// ffnTol: two float32 products of length Dim and one of length FFN, with a
// SiLU between; the outputs are of order 1.
var ffnTol = oracle.Tol{Atol: 2e-5, Rtol: 1e-4}

func dot64(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
