package unit03

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
)

func TestC3_5_MatVec(t *testing.T) {
	g := oracle.NewRand(37)
	p := NewPool(2)
	defer p.Close()
	dims := [][2]int{{1, 1}, {1, 100}, {3, 7}, {4, 16}, {5, 33}, {37, 65}, {64, 1000}, {1000, 129}, {257, 4099}}
	for _, k := range Kernels() {
		for _, d := range dims {
			for _, pool := range []*Pool{nil, p} {
				w := newMat(g, d[0], d[1], true)
				x := g.Uniform(d[1], -1, 1)
				y := g.Uniform(d[0], 5, 6) // garbage to be overwritten
				MatVec(pool, k, y, w, x)
				// y = W·x is the product of W (rows×cols) with x as a cols×1
				// matrix.
				want := oracle.MatMul(w.Data, w.Stride, x, 1, d[0], 1, d[1], false)
				abs := oracle.MatMulAbs(w.Data, w.Stride, x, 1, d[0], 1, d[1], false)
				bound := make([]float64, len(abs))
				for i, v := range abs {
					bound[i] = float64(d[1])*eps32*v + 1e-30
				}
				oracle.AssertBound(t, fmt.Sprintf("MatVec %d×%d kernel %v (%d threads)", d[0], d[1], k, pool.Threads()), y, want, bound, nil)
			}
		}
	}
	if !oracle.RaceEnabled {
		w, x, y := newMat(g, 300, 200, true), g.Uniform(200, -1, 1), make([]float32, 300)
		for _, pool := range []*Pool{nil, p} {
			MatVec(pool, Best(), y, w, x)
			if allocs := oracle.AllocsPerRun(20, func() { MatVec(pool, Best(), y, w, x) }); allocs != 0 {
				t.Errorf("MatVec 300×200 on %d threads allocates %v times per call, want 0: a decode step calls it seven times per layer", pool.Threads(), allocs)
			}
		}
	}
	if _, panicked := oracle.Panics(func() { MatVec(nil, KernelGo, make([]float32, 3), NewMat(3, 4), make([]float32, 5)) }); !panicked {
		t.Errorf("MatVec with len(x) ≠ W.Cols did not panic")
	}
}
