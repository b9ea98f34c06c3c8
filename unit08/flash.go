package unit08

import (
	"github.com/llmforge/forge/unit03"
)

// New returns flash attention for heads query heads of width headDim
// sharing kvHeads key/value heads, with scratch for up to threads workers.
// Sizes that are not positive, heads not a multiple of kvHeads, or more
// than MaxThreads threads are an error wrapping unit00.ErrInvalid.
func New(heads, kvHeads, headDim, threads int) (*Flash, error) {
	panic("TODO(8.2): write New, see docs/unit08.md")
}

// Bytes is the scratch memory f holds, every worker's together: all the
// memory attention needs besides its operands, whatever the length of the
// sequence.
func (f *Flash) Bytes() int {
	panic("TODO(8.2): write Flash.Bytes, see docs/unit08.md")
}

// Prefill computes causal grouped-query attention for the T rows of q, the
// tokens at positions pos0 … pos0+T−1, as unit05.Attention does (same
// arguments and result), without ever holding a row's scores for more
// than TileKeys keys: the rows are cut into tiles, each tile stacks the
// rows of every query head of one KV group, and walks the keys a block of
// TileKeys at a time, folding each block into a running Partial per row.
// The tiles are shared out over p. It panics (unit00.Check) on shapes
// that do not fit or heads other than New's.
func (f *Flash) Prefill(p *unit03.Pool, out, q, k, v unit03.Mat, heads, kvHeads, pos0 int) {
	panic("TODO(8.2): write Flash.Prefill, see docs/unit08.md")
}
