package unit03

import (
	"fmt"
	"slices"
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

func TestC3_5_MatVecChecks(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	for _, k := range Kernels() {
		for _, pool := range []*Pool{nil, p} {
			for _, c := range []struct{ nx, ny int }{{5, 3}, {3, 3}, {4, 2}, {4, 4}, {0, 3}, {4, 0}} {
				mustCheckPanic(t, fmt.Sprintf("MatVec (kernel %v, %d threads) of a 3×4 W with x of %d and y of %d", k, pool.Threads(), c.nx, c.ny), func() {
					MatVec(pool, k, make([]float32, c.ny), NewMat(3, 4), make([]float32, c.nx))
				})
			}
		}
	}
	for _, k := range []Kernel{KernelAVX2, KernelAVX512} {
		if !slices.Contains(Kernels(), k) {
			mustCheckPanic(t, fmt.Sprintf("MatVec with kernel %v, which Kernels() does not list", k), func() {
				MatVec(nil, k, make([]float32, 8), NewMat(8, 64), make([]float32, 64))
			})
		}
	}
}

// TestC3_5_MatVecViews runs MatVec on a W that is a block of a larger
// matrix (an offset, a stride above the width, data that ends at its last
// element), into a y in the middle of a longer slice, and on empty shapes: a
// W with no columns gives y = 0.
func TestC3_5_MatVecViews(t *testing.T) {
	g := oracle.NewRand(26)
	p := NewPool(3)
	defer p.Close()
	for _, k := range Kernels() {
		for _, pool := range []*Pool{nil, p} {
			for _, d := range [][2]int{{1, 1}, {7, 33}, {13, 100}, {64, 257}, {5, 0}, {0, 7}} {
				what := fmt.Sprintf("MatVec of a %d×%d W, a block of a larger matrix (kernel %v, %d threads)", d[0], d[1], k, pool.Threads())
				w := newMat(g, d[0]+2, d[1]+6, false).Block(1, 1+d[0], 3, 3+d[1])
				if d[0] == 0 || d[1] == 0 {
					// An empty Block has no data at all (and no rows to
					// take): use a strided matrix of its own instead.
					w = newMat(g, d[0], d[1], true)
					what = fmt.Sprintf("MatVec of a %d×%d W (kernel %v, %d threads)", d[0], d[1], k, pool.Threads())
				}
				x := g.Uniform(d[1], -1, 1)
				buf := make([]float32, d[0]+4)
				for i := range buf {
					buf[i] = sentinel
				}
				y := buf[2 : 2+d[0]]
				copy(y, g.Uniform(d[0], 5, 6)) // garbage to be overwritten
				MatVec(pool, k, y, w, x)
				if buf[0] != sentinel || buf[1] != sentinel || buf[len(buf)-2] != sentinel || buf[len(buf)-1] != sentinel {
					t.Fatalf("%s wrote outside y: the two floats on each side are %v and %v, want %v", what, buf[:2], buf[len(buf)-2:], float32(sentinel))
				}
				// W's rows, copied out, as a contiguous matrix for the oracle.
				flat := make([]float32, 0, d[0]*d[1])
				for j := 0; j < d[0]; j++ {
					flat = append(flat, w.Row(j)...)
				}
				want := oracle.MatMul(flat, d[1], x, 1, d[0], 1, d[1], false)
				abs := oracle.MatMulAbs(flat, d[1], x, 1, d[0], 1, d[1], false)
				bound := make([]float64, len(abs))
				for i, v := range abs {
					bound[i] = float64(d[1])*eps32*v + 1e-30
				}
				oracle.AssertBound(t, what, y, want, bound, nil)
			}
		}
	}
}
