package unit06

import (
	"fmt"
	"github.com/llmforge/forge/testkit/testmat"
	"math"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
)

// randMat, checkPadding and dense are testkit/testmat's:
// padded views whose padding holds a sentinel no correct code touches.
var (
	randMat      = testmat.Rand
	checkPadding = testmat.CheckPadding
	dense        = testmat.Dense
)

// moeShape is the shape of one mixture-of-experts layer.
type moeShape struct {
	name          string
	dim, ffn      int
	experts, used int
	renormalize   bool
	sharedFFN     int // 0: no shared expert
}

// shapes cover the architectures Forge runs (Mixtral: renormalised; Qwen2-
// MoE: raw probabilities and a shared expert), one expert and all experts
// used, and widths that are no multiple of any SIMD vector.
var shapes = []moeShape{
	{"mixtral-like", 48, 80, 8, 2, true, 0},
	{"qwen2moe-like", 40, 24, 6, 3, false, 56},
	{"one-expert", 32, 40, 1, 1, true, 0},
	{"all-used", 24, 36, 5, 5, false, 0},
	{"odd-widths", 37, 19, 4, 2, true, 11},
	{"narrow-shared", 16, 8, 3, 2, true, 1},
}

// moeTol is the budget of one MoE block in float32 against the float64
// oracle: outputs of order 0.1 to 1, each a weighted sum of k experts'
// products over widths below 100.
var moeTol = oracle.Tol{Atol: 2e-5, Rtol: 2e-5}

// testLayer is a test layer: the learner's weights (unit05.Dense matrices with
// padded strides) and the oracle's, holding the same numbers.
type testLayer struct {
	w *Weights
	o *oracle.MoELayer
}

// newTestLayer draws a layer of shape s from seed.
func newTestLayer(s moeShape, seed uint64) testLayer {
	g := oracle.NewRand(seed)
	matrix := func(out, in int, std float64) (unit05.Matrix, []float64) {
		m := randMat(g, out, in)
		for i := range out {
			for j := range in {
				m.Data[i*m.Stride+j] *= float32(std)
			}
		}
		return unit05.NewDense(m), oracle.Float64s(dense(m))
	}
	l := testLayer{w: &Weights{Used: s.used, Renormalize: s.renormalize},
		o: &oracle.MoELayer{Experts: s.experts, Used: s.used, FFN: s.ffn, Renormalize: s.renormalize}}
	// A router of std 2/√dim spreads the logits (std near 2) so that most
	// tokens' choices are clear; near-ties are avoided by the inputs.
	l.w.Router, l.o.Router = matrix(s.experts, s.dim, 2/math.Sqrt(float64(s.dim)))
	for range s.experts {
		gate, og := matrix(s.ffn, s.dim, 1/math.Sqrt(float64(s.dim)))
		up, ou := matrix(s.ffn, s.dim, 1/math.Sqrt(float64(s.dim)))
		down, od := matrix(s.dim, s.ffn, 1/math.Sqrt(float64(s.ffn)))
		l.w.Gate, l.w.Up, l.w.Down = append(l.w.Gate, gate), append(l.w.Up, up), append(l.w.Down, down)
		l.o.Gate, l.o.Up, l.o.Down = append(l.o.Gate, og), append(l.o.Up, ou), append(l.o.Down, od)
	}
	if s.sharedFFN > 0 {
		l.w.SharedGateInp = g.Normal(s.dim, 0, 1/math.Sqrt(float64(s.dim)))
		l.o.SharedGateInp, l.o.SharedFFN = oracle.Float64s(l.w.SharedGateInp), s.sharedFFN
		l.w.SharedGate, l.o.SharedGate = matrix(s.sharedFFN, s.dim, 1/math.Sqrt(float64(s.dim)))
		l.w.SharedUp, l.o.SharedUp = matrix(s.sharedFFN, s.dim, 1/math.Sqrt(float64(s.dim)))
		l.w.SharedDown, l.o.SharedDown = matrix(s.dim, s.sharedFFN, 1/math.Sqrt(float64(s.sharedFFN)))
	}
	return l
}

// newMoE makes the layer's block, failing the test on an error.
func newMoE(t testing.TB, l testLayer) *MoE {
	t.Helper()
	m, err := New(l.w)
	if err != nil {
		t.Fatalf("New of valid weights: %v", err)
	}
	return m
}

// clearRoute reports whether x's choice of experts is clear: the k-th and
// the (k+1)-th probabilities of the oracle's router differ by more than
// float32 rounding could blur, so a float32 router must choose as the
// oracle does.
func clearRoute(o *oracle.MoELayer, x []float64) bool {
	if o.Used == o.Experts {
		return true
	}
	logits := make([]float64, o.Experts)
	for e := range logits {
		for i, v := range x {
			logits[e] += o.Router[e*len(x)+i] * v
		}
	}
	experts, _ := oracle.MoERoute(logits, o.Experts, false)
	kth, next := logits[experts[o.Used-1]], logits[experts[o.Used]]
	return kth-next > 1e-3
}

// testTokens returns n rows of normalised-looking hidden states (N(0, 1)) in a
// padded matrix, each with a clear route, and the oracle's outputs.
func testTokens(l testLayer, seed uint64, n int) (x unit03.Mat, want []float64) {
	g := oracle.NewRand(seed)
	dim := len(l.o.Router) / l.o.Experts
	x = randMat(g, n, dim)
	for t := range n {
		for !clearRoute(l.o, oracle.Float64s(x.Row(t))) {
			copy(x.Row(t), g.Normal(dim, 0, 1))
		}
		want = append(want, oracle.MoE(l.o, oracle.Float64s(x.Row(t)))...)
	}
	return x, want
}

// counted wraps a Matrix and counts the rows it multiplies: which of a
// testLayer's matrices a block reads, and how often.
type counted struct {
	unit05.Matrix
	calls, rows int
}

func (c *counted) MulT(p *unit03.Pool, y, x unit03.Mat) {
	c.calls++
	c.rows += x.Rows
	c.Matrix.MulT(p, y, x)
}

// countAll wraps every matrix of w in a counted one and returns the
// router's and each expert's gate, up and down counters.
func countAll(w *Weights) (router *counted, gate, up, down []*counted) {
	router = &counted{Matrix: w.Router}
	w.Router = router
	wrap := func(ms []unit05.Matrix) []*counted {
		var cs []*counted
		for i, m := range ms {
			c := &counted{Matrix: m}
			ms[i] = c
			cs = append(cs, c)
		}
		return cs
	}
	return router, wrap(w.Gate), wrap(w.Up), wrap(w.Down)
}

// mustPanic checks that f panics through unit00.Check (whose message
// starts "check failed at unit06/"): a panic from further down (an index
// out of range) means the arguments were never checked, and a learner
// reading it cannot tell which was wrong.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	msg := fmt.Sprint(v)
	switch {
	case !panicked:
		t.Errorf("%s did not panic: arguments that do not fit are a programming error, panic through unit00.Check", what)
	case !strings.HasPrefix(msg, "check failed at unit06/"):
		t.Errorf("%s panicked with %q; want unit00.Check's panic from unit06, before anything is read", what, msg)
	}
}

// perm returns a seeded permutation of 0 … n−1.
func perm(g *oracle.Rand, n int) []int {
	p := make([]int, n)
	for i := range p {
		j := g.Intn(i + 1)
		p[i], p[j] = p[j], i
	}
	return p
}
