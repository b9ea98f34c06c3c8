package unit11

import (
	"math/rand/v2"
)

// Sampler picks next tokens from logits with one Params and its own seeded
// random source. It keeps its buffers between calls, so after the first
// call it allocates nothing. A Sampler is not safe for concurrent use.
type Sampler struct {
	params Params
	vocab  int
	rng    *rand.Rand
	work   []float32   // the logits after the penalties, when there are any
	probs  []float32   // their softmax, for Nucleus
	counts []int32     // occurrences of each token in the penalty window
	cands  []Candidate // the candidates; capacity vocab, for Nucleus
}

// NewSampler returns a sampler for a vocabulary of vocab tokens. Params
// that make no sense (a NaN or infinite value, TopP or MinP outside
// [0, 1], a RepeatPenalty ≤ 0, a PenaltyLastN below −1) are an error
// wrapping unit00.ErrInvalid that names the field.
func NewSampler(vocab int, p Params) (*Sampler, error) {
	panic("TODO(11.1): write NewSampler, see docs/unit11.md")
}

// Validate reports the first setting that makes no sense, naming it, as an
// error wrapping unit00.ErrInvalid.
func (p Params) Validate() error {
	panic("TODO(11.1): write Params.Validate, see docs/unit11.md")
}

// Params returns the sampler's settings.
func (s *Sampler) Params() Params {
	panic("TODO(11.1): write Sampler.Params, see docs/unit11.md")
}

// Candidates runs llama.cpp's default chain over logits (one per token of
// the vocabulary), after the tokens of history (the prompt and what was
// generated, oldest first):
//
//	penalties → top-k → top-p → min-p → temperature
//
// It returns the tokens left with their probabilities, which sum to 1, in
// an order that depends only on the inputs (so that a seed replays the
// same draws) but is otherwise unspecified: sorting a nucleus of 40,000
// tokens would cost more than the rest of the chain. Greedy (Temperature ≤
// 0) leaves one token, the highest after the penalties (equal logits: the
// lowest id). The slice is the sampler's own, valid until its next call;
// logits are not modified.
//
// A logit that is NaN or +Inf, logits of the wrong length, a history token
// outside the vocabulary, or no token with a finite logit is an error
// wrapping unit00.ErrInvalid.
func (s *Sampler) Candidates(logits []float32, history []int) ([]Candidate, error) {
	panic("TODO(11.1): write Sampler.Candidates, see docs/unit11.md")
}

// Sample runs Candidates and draws one of them with its probability from
// the sampler's random source. Errors are those of Candidates.
func (s *Sampler) Sample(logits []float32, history []int) (int, error) {
	panic("TODO(11.1): write Sampler.Sample, see docs/unit11.md")
}
