package unit03

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// eps32 is float32's unit roundoff, 2⁻²⁴.
const eps32 = 1.0 / (1 << 24)

// sentinel fills the padding of strided test matrices: a product that
// writes outside its view overwrites it.
const sentinel = -12345.5

// shape is an M×N×K product.
type shape struct{ m, n, k int }

func (s shape) String() string { return fmt.Sprintf("%d×%d×%d", s.m, s.n, s.k) }

// shapes covers 1s, primes, shapes that are not multiples of any tile, depths
// that cross the kernels' 256-deep blocks, and an empty depth.
var shapes = []shape{
	{1, 1, 1}, {1, 7, 3}, {3, 1, 5}, {5, 3, 1}, {7, 11, 13}, {17, 19, 23},
	{13, 33, 65}, {31, 29, 600}, {64, 64, 64}, {97, 101, 103}, {2, 3, 0},
}

// newMat returns a rows×cols matrix with random data; when padded, its
// stride is cols + 3 and the padding holds sentinel.
func newMat(g *oracle.Rand, rows, cols int, padded bool) Mat {
	stride := cols
	if padded {
		stride = cols + 3
	}
	m := Mat{Rows: rows, Cols: cols, Stride: stride, Data: make([]float32, rows*stride)}
	vals := g.Uniform(rows*stride, -1, 1)
	for i := range m.Data {
		m.Data[i] = vals[i]
		if i%stride >= cols {
			m.Data[i] = sentinel
		}
	}
	return m
}

// operands returns A (m×k), B (k×n, or n×k when transB) and a C to fill.
func operands(g *oracle.Rand, s shape, transB, padded bool) (c, a, b Mat) {
	a = newMat(g, s.m, s.k, padded)
	if transB {
		b = newMat(g, s.n, s.k, padded)
	} else {
		b = newMat(g, s.k, s.n, padded)
	}
	c = newMat(g, s.m, s.n, padded) // garbage: the product must overwrite it
	return c, a, b
}

// checkC compares C with the float64 product within the K·ε bound and checks
// that C's padding was not written.
func checkC(t *testing.T, what string, c, a, b Mat, transB bool) {
	t.Helper()
	m, n, k := c.Rows, c.Cols, a.Cols
	want := oracle.MatMul(a.Data, a.Stride, b.Data, b.Stride, m, n, k, transB)
	abs := oracle.MatMulAbs(a.Data, a.Stride, b.Data, b.Stride, m, n, k, transB)
	bound := make([]float64, len(abs))
	for i, v := range abs {
		// A sum of k products rounded in float32 in any order is within
		// k·ε·(|A|·|B|)ᵢⱼ of the exact value (plus a floor for exact zeros).
		bound[i] = float64(k)*eps32*v + 1e-30
	}
	got := make([]float32, 0, m*n)
	for i := 0; i < m; i++ {
		got = append(got, c.Data[i*c.Stride:i*c.Stride+n]...)
		for j := n; j < c.Stride && i*c.Stride+j < len(c.Data); j++ {
			if c.Data[i*c.Stride+j] != sentinel {
				t.Fatalf("%s: wrote %v into the padding of C at row %d, column %d (C is %d wide, stride %d): respect the stride",
					what, c.Data[i*c.Stride+j], i, j, n, c.Stride)
			}
		}
	}
	oracle.AssertBound(t, what, got, want, bound, []int{m, n})
}
