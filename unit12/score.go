package unit12

import (
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit07"
)

// Scorer runs a few tokens through a session's model in one pass, as
// Prefill does, but keeps the logits of every one of them: the target's
// verdict on a whole draft for the price of one pass, since a pass over a
// few rows reads the weights once, as a single row's does. Its buffers are
// allocated when it is made; Score allocates nothing.
type Scorer struct {
	s      *unit07.Session
	max    int
	x      []float32 // hidden states, max × Dim
	logits []float32 // max × Vocab
}

// NewScorer returns a scorer of at most maxTokens tokens a pass over s.
// maxTokens < 1 is an error wrapping unit00.ErrInvalid.
func NewScorer(s *unit07.Session, maxTokens int) (*Scorer, error) {
	panic("TODO(12.1): write NewScorer, see docs/unit12.md")
}

// Score runs tokens through the model at positions Len() … Len()+T−1 of
// the session, adds their keys and values to its cache, and returns T ×
// Vocab logits: row i scores the token that follows tokens[i]. The matrix
// is the scorer's own, valid until its next call. No tokens, more than
// maxTokens, a token outside the vocabulary (unit00.ErrInvalid), or more
// tokens than the cache has room for (unit07.ErrContextFull) is an error,
// and the session is then unchanged.
func (sc *Scorer) Score(tokens []int) (unit03.Mat, error) {
	panic("TODO(12.1): write Scorer.Score, see docs/unit12.md")
}
