package unit05

import (
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit02"
	"github.com/llmforge/forge/unit03"
)

// FeedForward sets out to Llama's SwiGLU feed-forward block of x, row by
// row: out = (SiLU(x·Gateᵀ) ⊙ (x·Upᵀ))·Downᵀ. x and out are T × Dim; gate
// and up are T × FFN scratch, overwritten. p may be nil (one thread).
func FeedForward(p *unit03.Pool, out, x unit03.Mat, l *Layer, gate, up unit03.Mat) {
	unit00.Check(gate.Rows == x.Rows && up.Rows == x.Rows && out.Rows == x.Rows, "FeedForward: x, out, gate and up must have as many rows")
	l.Gate.MulT(p, gate, x)
	l.Up.MulT(p, up, x)
	for t := range x.Rows {
		unit02.SwiGLU(gate.Row(t), gate.Row(t), up.Row(t))
	}
	l.Down.MulT(p, out, gate)
}
