package unit07

import (
	"github.com/llmforge/forge/unit05"
)

// Session is one sequence being processed by a model: its KV cache and the
// buffers of a pass, all allocated when it is made. A prompt goes in with
// Prefill, generated tokens one at a time with Step; neither recomputes a
// position already in the cache, and after the first call neither
// allocates. A Session (like its Model) is not safe for concurrent use.
type Session struct {
	Model  *unit05.Model
	Cache  *Cache
	x      []float32 // hidden states, up to MaxSeq × Dim
	logits []float32 // the last position's logits, Vocab
}

// NewSession returns a session over m with an empty cache of m's MaxSeq
// positions: rows of KVDim floats, or none when m.Store keeps the keys and
// values itself.
func NewSession(m *unit05.Model) *Session {
	panic("TODO(7.2): write NewSession, see docs/unit07.md")
}

// Len is the number of positions processed so far.
func (s *Session) Len() int {
	panic("TODO(7.2): write Session.Len, see docs/unit07.md")
}

// Prefill runs tokens through the model at positions Len() … Len()+T−1,
// adding their keys and values to the cache, and returns the logits of the
// last one: the scores of the token that comes next. The slice is the
// session's own, valid until the next call. No tokens, a token outside the
// vocabulary (unit00.ErrInvalid), or more tokens than the cache has room
// for (ErrContextFull) is an error, and the session is then unchanged.
func (s *Session) Prefill(tokens []int) ([]float32, error) {
	panic("TODO(7.2): write Session.Prefill, see docs/unit07.md")
}

// Step runs one token at position Len(), a decode step: Prefill of a
// single token, whose products are matrix–vector products.
func (s *Session) Step(token int) ([]float32, error) {
	panic("TODO(7.2): write Session.Step, see docs/unit07.md")
}

// PrefillChunked is Prefill in pieces of at most chunk tokens, each
// attending to the cache the earlier ones filled: the same logits as one
// Prefill (up to float32 rounding), with passes short enough for a server
// to run other sequences' decode steps between them (unit13). An error in
// any piece (a token outside the vocabulary, a full context) is reported
// before anything is processed, and the session is then unchanged. No
// tokens, or a chunk below 1, is an error wrapping unit00.ErrInvalid.
func (s *Session) PrefillChunked(tokens []int, chunk int) ([]float32, error) {
	panic("TODO(7.3): write Session.PrefillChunked, see docs/unit07.md")
}

// Reset empties the cache for a new sequence.
func (s *Session) Reset() {
	panic("TODO(7.4): write Session.Reset, see docs/unit07.md")
}

// Truncate forgets every position from n on, so the next token goes to
// position n: for a new turn of a conversation that shares a prefix with
// the last, or to take back speculated tokens (unit12). n beyond Len() is
// an error wrapping unit00.ErrInvalid.
func (s *Session) Truncate(n int) error {
	panic("TODO(7.4): write Session.Truncate, see docs/unit07.md")
}
