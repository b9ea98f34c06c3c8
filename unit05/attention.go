package unit05

import (
	"github.com/llmforge/forge/unit03"
)

// Attention computes causal grouped-query attention for the T rows of q,
// the tokens at positions pos0 … pos0+T−1. Each row holds heads query heads
// of width hd = q.Cols/heads side by side; k and v hold the keys and values
// of positions 0 … pos0+T−1 (at least pos0+T rows), kvHeads heads each.
// Query head h reads key/value head h/(heads/kvHeads), so each group of
// consecutive query heads shares one head (GQA; kvHeads = 1 is MQA, kvHeads
// = heads is MHA). Row t attends to positions 0 … pos0+t and no later one
// (causal), with scores q·k/√hd turned into weights by a softmax:
//
//	out[t, h] = Σ_{p ≤ pos0+t} softmax_p(q[t,h]·k[p,g] / √hd) · v[p,g],  g = h/(heads/kvHeads)
//
// out (T × q.Cols) is overwritten; scores is scratch of at least pos0+T
// floats. It panics (unit00.Check) on shapes that do not fit.
func Attention(out, q, k, v unit03.Mat, heads, kvHeads, pos0 int, scores []float32) {
	panic("TODO(5.3): write Attention, see docs/unit05.md")
}
