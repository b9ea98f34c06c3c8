package unit08

import (
	"github.com/llmforge/forge/unit03"
)

// Reset empties p: no key seen, M = −Inf, L = 0, O all zeros.
func (p *Partial) Reset() {
	panic("TODO(8.1): write Partial.Reset, see docs/unit08.md")
}

// Add folds in a block of keys: scores[j] is the scaled score of the key
// whose value is row j of v (−Inf for a key the row may not see). scores
// is overwritten (it becomes the block's exponentials). It panics
// (unit00.Check) when the lengths do not fit.
func (p *Partial) Add(scores []float32, v unit03.Mat) {
	panic("TODO(8.1): write Partial.Add, see docs/unit08.md")
}

// Merge folds q, a partial over other keys of the same query row, into p:
// the result is the partial over both sets of keys. q is not changed.
func (p *Partial) Merge(q *Partial) {
	panic("TODO(8.1): write Partial.Merge, see docs/unit08.md")
}

// Result writes the attention output O/L into out (zeros if no key was
// seen). It panics (unit00.Check) when out is not as long as O.
func (p *Partial) Result(out []float32) {
	panic("TODO(8.1): write Partial.Result, see docs/unit08.md")
}
