package unit05

import (
	"github.com/llmforge/forge/unit03"
)

// FeedForward sets out to Llama's SwiGLU feed-forward block of x, row by
// row: out = (SiLU(x·Gateᵀ) ⊙ (x·Upᵀ))·Downᵀ. x and out are T × Dim; gate
// and up are T × FFN scratch, overwritten. p may be nil (one thread).
func FeedForward(p *unit03.Pool, out, x unit03.Mat, l *Layer, gate, up unit03.Mat) {
	panic("TODO(5.4): write FeedForward, see docs/unit05.md")
}
