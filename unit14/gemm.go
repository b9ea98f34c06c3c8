package unit14

import (
	"github.com/llmforge/forge/unit03"
)

// Q8Gemm multiplies Q8_0 weights by Q8_0 activations: the integer GEMM
// of a prompt's prefill, where every weight row meets many activation
// rows. It keeps its pool task in itself, so a call allocates nothing; a
// Q8Gemm is not safe for concurrent use. The zero value is ready.
type Q8Gemm struct {
	// TODO(14.4): what a call keeps between calls (its unit03.Task).
}

// MulT sets y = x·Wᵀ where w holds the rows of W (y.Cols of them) and a
// the rows of x (y.Rows of them), cols elements each, both as Q8_0
// blocks: y[t][j] = Σ over blocks of d_w·d_a·Σ q_w·q_a, the quants
// multiplied and summed in integers, the scales applied once per block.
// The work is tiled four weight rows by four activation rows: each block
// fetched is used four times while it is in the L1 cache, so the product
// moves a quarter of the bytes per operation a row-by-row product moves.
// The weight rows are shared out over p (nil: one thread) with Span in
// fours, so every y element is computed the same way whatever the thread
// count. y may be a view with a stride. It panics (unit00.Check) unless
// cols is a positive multiple of 32 and w and a hold exactly y.Cols and
// y.Rows rows.
func (g *Q8Gemm) MulT(p *unit03.Pool, y unit03.Mat, w, a []byte, cols int) {
	panic("TODO(14.4): write Q8Gemm.MulT, see docs/unit14.md")
}
