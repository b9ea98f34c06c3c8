package unit08

import (
	"github.com/llmforge/forge/unit03"
)

// Decode computes attention for one query row (q has one row) at
// position pos0 over keys and values 0 … pos0, as Prefill does, but shares
// the keys out instead of the rows ("flash decoding", split-K): each of up
// to p.Threads() parts folds a contiguous range of positions into a
// Partial per head, and the parts' partials are merged into the result.
// A part gets at least MinSplit positions, so a short cache is not cut
// into pieces too small to pay for the handoff. It panics
// (unit00.Check) on shapes that do not fit or heads other than New's.
func (f *Flash) Decode(p *unit03.Pool, out, q, k, v unit03.Mat, heads, kvHeads, pos0 int) {
	panic("TODO(8.3): write Flash.Decode, see docs/unit08.md")
}
