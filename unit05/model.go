package unit05

import (
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// Model runs a Llama-family transformer. Its scratch memory is one arena,
// sized when the model is made, so after a first pass a forward pass
// allocates nothing. A Model is not safe for concurrent use.
type Model struct {
	Config  Config
	Weights *Weights
	Pool    *unit03.Pool // the threads of the matrix products; nil: one
	// Attention, when set, computes every block's attention in place of
	// the model's own roads (Attention for a row, products for a band of
	// rows): unit08's flash attention plugs in here.
	Attention Attender
	// Store, when set, keeps every block's keys and values and attends
	// over them in place of the cache Block is given and of Attention:
	// unit08's F16 and Q8_0 caches plug in here.
	Store KVStore
	rope  *Rope
	arena *unit01.Arena
}

// NewModel checks c and w and prepares a model: the RoPE tables for
// c.MaxSeq positions and an arena large enough for a forward pass over
// c.MaxSeq tokens. An invalid config, weights that do not fit it, or a
// MaxSeq whose tables and scratch no process could address (more than 2⁴⁷
// bytes) are an error wrapping unit00.ErrInvalid. p may be nil.
func NewModel(c Config, w *Weights, p *unit03.Pool) (*Model, error) {
	panic("TODO(5.5): write NewModel, see docs/unit05.md")
}

// Forward computes the logits of every position of a prompt: row t of
// logits (len(tokens) × Vocab) scores the token that follows tokens[0 … t].
// The tokens sit at positions 0 … len(tokens)−1; there is no cache, so
// every call starts from nothing. No tokens, more than MaxSeq, or one
// outside the vocabulary is an error wrapping unit00.ErrInvalid. It panics
// (unit00.Check) if logits has the wrong shape.
func (m *Model) Forward(logits unit03.Mat, tokens []int) error {
	panic("TODO(5.5): write Model.Forward, see docs/unit05.md")
}

// Block runs transformer block l on the hidden states x in place: the T
// rows of x are the tokens at positions pos0 … pos0+T−1. It writes their
// keys and values into rows pos0 … pos0+T−1 of keys and values, whose rows
// 0 … pos0−1 must already hold the earlier positions' (a KV cache, unit07),
// and attends over all pos0+T of them. The pre-norm residual structure:
//
//	x += Wo · Attention(RoPE(Wq·n), RoPE(Wk·n), Wv·n),  n = RMSNorm(x)·AttnNorm
//	x += FeedForward(RMSNorm(x)·FFNNorm)
//
// where a layer with an MoE block runs it in place of FeedForward. With
// m.Store set, the keys and values go to the store and attention comes
// from it: keys and values are then not used (they may be empty).
// It panics (unit00.Check) on shapes that do not fit.
func (m *Model) Block(l int, x unit03.Mat, pos0 int, keys, values unit03.Mat) {
	panic("TODO(5.5): write Model.Block, see docs/unit05.md")
}

// Logits sets logits (T × Vocab) to the output layer applied to the hidden
// states x (T × Dim): Output · (RMSNorm(x)·OutNorm), row by row. x is left
// unchanged. It panics (unit00.Check) on shapes that do not fit.
func (m *Model) Logits(logits, x unit03.Mat) {
	panic("TODO(5.5): write Model.Logits, see docs/unit05.md")
}
