package unit03

import (
	"fmt"
	"strings"
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

// mustCheckPanic runs f, which breaks a documented precondition, and fails
// unless it panics through unit00.Check. A runtime error (an index out of
// range) does not count: it means the arguments were not checked before use,
// and a call whose bad operand happens not to be indexed out of range would
// run on and silently compute the wrong thing.
func mustCheckPanic(t *testing.T, what string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	switch s, _ := v.(string); {
	case !panicked:
		t.Errorf("%s did not panic: check every operand with unit00.Check before computing (for products, the given checkProduct does)", what)
	case !strings.HasPrefix(s, "check failed"):
		t.Errorf("%s panicked with %v, want a panic from unit00.Check: check the operands first, do not rely on an index going out of range", what, v)
	}
}

// product is one of the unit's matrix products, C = A·B or, when transB,
// C = A·Bᵀ with B given as its N×K transpose.
type product struct {
	name   string
	transB bool
	f      func(c, a, b Mat)
}

// checkProductPanics hands each product operands that do not fit, one fault
// at a time, and wants a panic through unit00.Check for each: every shape
// relation checked on its own, and every matrix's data and stride.
func checkProductPanics(t *testing.T, ps ...product) {
	t.Helper()
	short := func(m Mat) Mat { m.Data = m.Data[:len(m.Data)-1]; return m }
	narrow := func(m Mat) Mat { m.Stride--; return m }
	for _, p := range ps {
		// A is 2×3 and B 3×5 (or 5×3 transposed), so C is 2×5.
		bmat := func(k, n int) Mat {
			if p.transB {
				return NewMat(n, k)
			}
			return NewMat(k, n)
		}
		for _, c := range []struct {
			what    string
			c, a, b Mat
		}{
			{"a B of 4 rows for an A of 3 columns", NewMat(2, 5), NewMat(2, 3), bmat(4, 5)},
			{"a B of 2 rows for an A of 3 columns", NewMat(2, 5), NewMat(2, 3), bmat(2, 5)},
			{"a C of 3 rows for an A of 2", NewMat(3, 5), NewMat(2, 3), bmat(3, 5)},
			{"a C of 1 row for an A of 2", NewMat(1, 5), NewMat(2, 3), bmat(3, 5)},
			{"a C of 4 columns for a B of 5", NewMat(2, 4), NewMat(2, 3), bmat(3, 5)},
			{"a C of 6 columns for a B of 5", NewMat(2, 6), NewMat(2, 3), bmat(3, 5)},
			{"A's data one float short of its shape", NewMat(2, 5), short(NewMat(2, 3)), bmat(3, 5)},
			{"B's data one float short of its shape", NewMat(2, 5), NewMat(2, 3), short(bmat(3, 5))},
			{"C's data one float short of its shape", short(NewMat(2, 5)), NewMat(2, 3), bmat(3, 5)},
			{"A's stride below its width", NewMat(2, 5), narrow(NewMat(2, 3)), bmat(3, 5)},
			{"C's stride below its width", narrow(NewMat(2, 5)), NewMat(2, 3), bmat(3, 5)},
		} {
			mustCheckPanic(t, fmt.Sprintf("%s with %s (C %v, A %v, B %v)", p.name, c.what, c.c, c.a, c.b), func() { p.f(c.c, c.a, c.b) })
		}
	}
}

// emptyShapes are products with a zero extent: C has no elements, or the
// sum over K is empty and C must be all zeros.
var emptyShapes = []shape{{0, 5, 3}, {4, 0, 3}, {0, 0, 0}, {3, 4, 0}, {0, 3, 0}}

// blockOperands returns A, B (K×N, or N×K when transB) and C as blocks in the
// middle of larger matrices, so each starts at an offset, has a stride
// larger than its width, and has data that ends exactly at its last
// element, as a Block gives. Around C the parent holds sentinel; parent is
// C's parent, for checkParent. Every extent of s must be positive.
func blockOperands(g *oracle.Rand, s shape, transB bool) (c, a, b, parent Mat) {
	embed := func(rows, cols int) (Mat, Mat) {
		p := newMat(g, rows+3, cols+5, false)
		return p.Block(2, 2+rows, 1, 1+cols), p
	}
	a, _ = embed(s.m, s.k)
	if transB {
		b, _ = embed(s.n, s.k)
	} else {
		b, _ = embed(s.k, s.n)
	}
	c, parent = embed(s.m, s.n)
	for i := range parent.Data {
		parent.Data[i] = sentinel
	}
	for i := 0; i < c.Rows && c.Cols > 0; i++ { // garbage to be overwritten
		copy(c.Row(i), g.Uniform(c.Cols, 5, 6))
	}
	return c, a, b, parent
}

// checkParent checks that nothing outside C, the block at (2, 1) of parent,
// was written.
func checkParent(t *testing.T, what string, c, parent Mat) {
	t.Helper()
	for i := 0; i < parent.Rows; i++ {
		for j := 0; j < parent.Cols; j++ {
			inside := i >= 2 && i < 2+c.Rows && j >= 1 && j < 1+c.Cols
			if v := parent.At(i, j); !inside && v != sentinel {
				t.Fatalf("%s: wrote %v outside C, at row %d, column %d of the matrix C is a block of (C is rows 2 to %d, columns 1 to %d): respect the offset, the stride and the shape",
					what, v, i, j, 1+c.Rows, c.Cols)
			}
		}
	}
}
