package unit08

import (
	"fmt"
	"github.com/llmforge/forge/testkit/testmat"
	"math"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// randMat, checkPadding and dense are testkit/testmat's:
// padded views whose padding holds a sentinel no correct code touches.
var (
	randMat      = testmat.Rand
	checkPadding = testmat.CheckPadding
	dense        = testmat.Dense
)

// attentionTol is the budget of attention in float32 against the float64
// oracle: each output is a convex combination of values of order 1,
// weighted by a float32 softmax of float32 dot products over up to a
// thousand keys. (unit05's row road is held to 2e-6/2e-5 over fewer keys.)
var attentionTol = oracle.Tol{Atol: 1e-5, Rtol: 1e-4}

// problem is one attention call: T query rows at positions pos0 … pos0+T−1
// against the keys and values of positions 0 … pos0+T−1.
type problem struct {
	heads, kvHeads, hd int
	T, pos0            int
}

func (c problem) String() string {
	return fmt.Sprintf("heads %d, kv heads %d, head dim %d, T %d, pos0 %d", c.heads, c.kvHeads, c.hd, c.T, c.pos0)
}

// operands draws q, k and v for c, and the oracle's result. k and v have
// extra rows (positions no query may see) filled with NaN: reading one
// poisons the output.
func operands(c problem, seed uint64) (q, k, v unit03.Mat, want []float64) {
	g := oracle.NewRand(seed)
	S := c.pos0 + c.T
	q = randMat(g, c.T, c.heads*c.hd)
	k, v = randMat(g, S+5, c.kvHeads*c.hd), randMat(g, S+5, c.kvHeads*c.hd)
	want = oracle.Attention(oracle.Float64s(dense(q)), oracle.Float64s(dense(k.Block(0, S, 0, k.Cols))),
		oracle.Float64s(dense(v.Block(0, S, 0, v.Cols))), c.T, c.pos0, c.heads, c.kvHeads, c.hd)
	nan := float32(math.NaN())
	for i := S; i < S+5; i++ {
		for j := range k.Cols {
			k.Set(i, j, nan)
			v.Set(i, j, nan)
		}
	}
	return q, k, v, want
}

// newFlash makes a Flash, failing the test on an error.
func newFlash(t testing.TB, heads, kvHeads, hd, threads int) *Flash {
	t.Helper()
	f, err := New(heads, kvHeads, hd, threads)
	if err != nil {
		t.Fatalf("New(%d, %d, %d, %d): %v", heads, kvHeads, hd, threads, err)
	}
	return f
}

// pools returns no pool and pools of 2 and 3 threads, and a func that
// closes them.
func pools() ([]*unit03.Pool, func()) {
	p2, p3 := unit03.NewPool(2), unit03.NewPool(3)
	return []*unit03.Pool{nil, p2, p3}, func() { p2.Close(); p3.Close() }
}

// mustPanic checks that f panics through unit00.Check, whose message starts
// "check failed at": a panic from further down (an index out of range)
// means the arguments were never checked.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	switch {
	case !panicked:
		t.Errorf("%s did not panic: sizes that do not fit are a programming error, panic through unit00.Check", what)
	case !strings.HasPrefix(fmt.Sprint(v), "check failed at "):
		t.Errorf("%s panicked with %q, not through unit00.Check: check the arguments with unit00.Check before using them", what, v)
	}
}

// nanMat returns a rows × cols matrix like randMat's, every element NaN:
// an output that must be overwritten, not added to.
func nanMat(rows, cols int) unit03.Mat {
	m := randMat(oracle.NewRand(9), rows, cols)
	for i := range rows {
		for j := range cols {
			m.Set(i, j, float32(math.NaN()))
		}
	}
	return m
}
