package unit07

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
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
	c := m.Config
	kvDim := c.KVDim()
	if m.Store != nil {
		kvDim = 0 // the store holds them; the cache counts the positions
	}
	return &Session{
		Model:  m,
		Cache:  NewCache(c.Layers, c.MaxSeq, kvDim),
		x:      make([]float32, c.MaxSeq*c.Dim),
		logits: make([]float32, c.Vocab),
	}
}

// Len is the number of positions processed so far.
func (s *Session) Len() int { return s.Cache.Len() }

// Prefill runs tokens through the model at positions Len() … Len()+T−1,
// adding their keys and values to the cache, and returns the logits of the
// last one: the scores of the token that comes next. The slice is the
// session's own, valid until the next call. No tokens, a token outside the
// vocabulary (unit00.ErrInvalid), or more tokens than the cache has room
// for (ErrContextFull) is an error, and the session is then unchanged.
func (s *Session) Prefill(tokens []int) ([]float32, error) {
	c := s.Model.Config
	T, pos0 := len(tokens), s.Cache.Len()
	if T == 0 {
		return nil, fmt.Errorf("prefill: no tokens: %w", unit00.ErrInvalid)
	}
	if pos0+T > s.Cache.Cap() {
		return nil, fmt.Errorf("prefill: %d tokens at position %d exceed the context of %d: %w", T, pos0, s.Cache.Cap(), ErrContextFull)
	}
	x := unit03.MatOf(T, c.Dim, s.x[:T*c.Dim])
	if err := unit05.Embed(x, s.Model.Weights.Embed, tokens); err != nil {
		return nil, fmt.Errorf("prefill: %w", err)
	}
	for l := range c.Layers {
		s.Model.Block(l, x, pos0, s.Cache.Keys(l), s.Cache.Values(l))
	}
	if err := s.Cache.Advance(T); err != nil {
		panic(err) // room was checked above
	}
	s.Model.Logits(unit03.MatOf(1, c.Vocab, s.logits), x.Block(T-1, T, 0, c.Dim))
	return s.logits, nil
}

// Step runs one token at position Len(), a decode step: Prefill of a
// single token, whose products are matrix–vector products.
func (s *Session) Step(token int) ([]float32, error) {
	tok := [1]int{token}
	return s.Prefill(tok[:])
}

// PrefillChunked is Prefill in pieces of at most chunk tokens, each
// attending to the cache the earlier ones filled: the same logits as one
// Prefill (up to float32 rounding), with passes short enough for a server
// to run other sequences' decode steps between them (unit13). An error in
// any piece (a token outside the vocabulary, a full context) is reported
// before anything is processed, and the session is then unchanged.
func (s *Session) PrefillChunked(tokens []int, chunk int) ([]float32, error) {
	if chunk <= 0 {
		return nil, fmt.Errorf("prefill: chunk size %d: %w", chunk, unit00.ErrInvalid)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("prefill: no tokens: %w", unit00.ErrInvalid)
	}
	if s.Len()+len(tokens) > s.Cache.Cap() {
		return nil, fmt.Errorf("prefill: %d tokens at position %d exceed the context of %d: %w", len(tokens), s.Len(), s.Cache.Cap(), ErrContextFull)
	}
	vocab := s.Model.Config.Vocab
	for i, tok := range tokens {
		if tok < 0 || tok >= vocab {
			return nil, fmt.Errorf("prefill: token %d at position %d is outside the vocabulary [0, %d): %w", tok, i, vocab, unit00.ErrInvalid)
		}
	}
	var logits []float32
	for start := 0; start < len(tokens); start += chunk {
		var err error
		if logits, err = s.Prefill(tokens[start:min(start+chunk, len(tokens))]); err != nil {
			panic(err) // every condition was checked above
		}
	}
	return logits, nil
}

// Reset empties the cache for a new sequence.
func (s *Session) Reset() { s.Cache.Reset() }

// Truncate forgets every position from n on, so the next token goes to
// position n: for a new turn of a conversation that shares a prefix with
// the last, or to take back speculated tokens (unit12). n beyond Len() is
// an error wrapping unit00.ErrInvalid.
func (s *Session) Truncate(n int) error { return s.Cache.Truncate(n) }
