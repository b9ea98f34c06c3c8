package unit12

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
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
	if maxTokens < 1 {
		return nil, fmt.Errorf("scorer: at most %d tokens a pass: want ≥ 1: %w", maxTokens, unit00.ErrInvalid)
	}
	c := s.Model.Config
	return &Scorer{s: s, max: maxTokens, x: make([]float32, maxTokens*c.Dim), logits: make([]float32, maxTokens*c.Vocab)}, nil
}

// Score runs tokens through the model at positions Len() … Len()+T−1 of
// the session, adds their keys and values to its cache, and returns T ×
// Vocab logits: row i scores the token that follows tokens[i]. The matrix
// is the scorer's own, valid until its next call. No tokens, more than
// maxTokens, a token outside the vocabulary (unit00.ErrInvalid), or more
// tokens than the cache has room for (unit07.ErrContextFull) is an error,
// and the session is then unchanged.
func (sc *Scorer) Score(tokens []int) (unit03.Mat, error) {
	s, c := sc.s, sc.s.Model.Config
	T, pos0 := len(tokens), s.Len()
	switch {
	case T == 0:
		return unit03.Mat{}, fmt.Errorf("score: no tokens: %w", unit00.ErrInvalid)
	case T > sc.max:
		return unit03.Mat{}, fmt.Errorf("score: %d tokens, more than the %d of a pass: %w", T, sc.max, unit00.ErrInvalid)
	case pos0+T > s.Cache.Cap():
		return unit03.Mat{}, fmt.Errorf("score: %d tokens at position %d exceed the context of %d: %w", T, pos0, s.Cache.Cap(), unit07.ErrContextFull)
	}
	x := unit03.MatOf(T, c.Dim, sc.x[:T*c.Dim])
	if err := unit05.Embed(x, s.Model.Weights.Embed, tokens); err != nil {
		return unit03.Mat{}, fmt.Errorf("score: %w", err)
	}
	for l := range c.Layers {
		s.Model.Block(l, x, pos0, s.Cache.Keys(l), s.Cache.Values(l))
	}
	if err := s.Cache.Advance(T); err != nil {
		panic(err) // room was checked above
	}
	logits := unit03.MatOf(T, c.Vocab, sc.logits[:T*c.Vocab])
	s.Model.Logits(logits, x)
	return logits, nil
}
