package unit08

import (
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit02"
	"github.com/llmforge/forge/unit03"
)

// Reset empties p: no key seen, M = −Inf, L = 0, O all zeros.
func (p *Partial) Reset() {
	p.M, p.L = negInf, 0
	clear(p.O)
}

// Add folds in a block of keys: scores[j] is the scaled score of the key
// whose value is row j of v (−Inf for a key the row may not see). scores
// is overwritten (it becomes the block's exponentials). It panics
// (unit00.Check) when the lengths do not fit.
func (p *Partial) Add(scores []float32, v unit03.Mat) {
	unit00.Check(len(scores) == v.Rows && v.Cols == len(p.O), "Partial.Add: want one score per row of v, and v as wide as O")
	// The exponentials against the new running maximum, the larger of
	// the old one and the block's: what was summed so far is rescaled to
	// it once, by e^(old−new), which is exactly 1 when the maximum stays.
	top, l := unit02.SoftmaxParts(scores, scores, 1, p.M)
	a := shrink(p.M, top)
	for i := range p.O {
		p.O[i] *= a
	}
	for j, e := range scores {
		axpy(p.O, e, v.Row(j))
	}
	p.L = a*p.L + l
	p.M = top
}

// Merge folds q, a partial over other keys of the same query row, into p:
// the result is the partial over both sets of keys. q is not changed.
func (p *Partial) Merge(q *Partial) {
	unit00.Check(len(q.O) == len(p.O), "Partial.Merge: O lengths differ")
	p.fold(q.M, q.L, q.O)
}

// fold adds keys whose own maximum is m, sum l and unnormalised output o.
func (p *Partial) fold(m, l float32, o []float32) {
	top, a, b := rescale(p.M, m) // m = −Inf (the other side saw no key): b = 0
	for i := range p.O {
		p.O[i] = a*p.O[i] + b*o[i]
	}
	p.L = a*p.L + b*l
	p.M = top
}

// rescale returns the larger of two maxima, M and m, and the factors that
// bring sums taken against each to the larger one: e^(s−top) =
// e^(s−M)·e^(M−top).
func rescale(M, m float32) (top, a, b float32) {
	top = max(M, m)
	return top, shrink(M, top), shrink(m, top)
}

// shrink is e^(m−top) for m ≤ top: 1 when they are equal (no exponential
// taken, and −Inf against −Inf is not NaN), 0 when m is −Inf.
func shrink(m, top float32) float32 {
	if m == top {
		return 1
	}
	return expf(m - top)
}

// Result writes the attention output O/L into out (zeros if no key was
// seen). It panics (unit00.Check) when out is not as long as O.
func (p *Partial) Result(out []float32) {
	unit00.Check(len(out) == len(p.O), "Partial.Result: out must be as long as O")
	if p.L == 0 {
		clear(out)
		return
	}
	inv := 1 / p.L
	for i, o := range p.O {
		out[i] = o * inv
	}
}

var negInf = float32(math.Inf(-1))

// expf is e^x for the few rescaling factors per row and block; the
// block's own exponentials come from unit02's vector kernel.
func expf(x float32) float32 { return float32(math.Exp(float64(x))) }

// axpy adds alpha·x to y.
func axpy(y []float32, alpha float32, x []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += alpha * x[i]
	}
}
