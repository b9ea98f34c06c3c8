package unit06

import (
	"github.com/llmforge/forge/unit03"
)

// MoE is one layer's mixture-of-experts feed-forward block: each token
// runs only the experts its router chooses. It implements unit05.FFN, so a
// unit05.Layer runs it in place of a dense feed-forward. Its scratch
// memory grows to the most rows it has been given and is then reused: a
// decode step allocates nothing. An MoE is not safe for concurrent use.
type MoE struct {
	// Your fields: the weights, the sizes, and the scratch memory that
	// Token and FeedForward reuse from call to call.
	w *Weights
}

// New checks w and makes its block. Every matrix must be there with the
// shape the router's (Experts × Dim) and the first expert's gate
// (FFN × Dim) imply, 1 ≤ Used ≤ Experts ≤ MaxExperts, and the shared expert
// all there or all nil. The error names the tensor as GGUF does
// (ffn_up_exps, expert 3) and wraps unit00.ErrInvalid.
func New(w *Weights) (*MoE, error) {
	panic("TODO(6.2): write New, see docs/unit06.md")
}

// Weights returns the weights the block was made with.
func (m *MoE) Weights() *Weights {
	panic("TODO(6.2): write MoE.Weights, see docs/unit06.md")
}

// Width is the model width the block reads and writes.
func (m *MoE) Width() int {
	panic("TODO(6.2): write MoE.Width, see docs/unit06.md")
}

// Token sets out to the block applied to one token's normalised hidden
// state x (both Dim long, not overlapping): Σ over the chosen experts, most
// probable first, of weight · Down_e(SiLU(Gate_e·x) ⊙ Up_e·x), plus the
// shared expert's output times σ(SharedGateInp·x) when the layer has one.
// It reads the weights of the chosen experts only. p may be nil.
func (m *MoE) Token(p *unit03.Pool, out, x []float32) {
	panic("TODO(6.2): write MoE.Token, see docs/unit06.md")
}

// FeedForward sets out to the block applied to every row of x (T × Dim
// each, not overlapping), as Token does for one; no rows, nothing. A
// decode step (T = 1) goes to Token. A prompt's rows are grouped by
// expert first, so that each expert multiplies all of its rows at once:
// one matrix product per expert and layer, as ggml's mul_mat_id does,
// instead of one matrix–vector product per token and expert.
func (m *MoE) FeedForward(p *unit03.Pool, out, x unit03.Mat) {
	panic("TODO(6.3): write MoE.FeedForward, see docs/unit06.md")
}
