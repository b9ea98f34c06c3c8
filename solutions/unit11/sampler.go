package unit11

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit02"
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
	if vocab <= 0 {
		return nil, fmt.Errorf("sampler: a vocabulary of %d tokens: %w", vocab, unit00.ErrInvalid)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Sampler{
		params: p,
		vocab:  vocab,
		rng:    rand.New(rand.NewPCG(p.Seed, 0x666f726765)), // "forge"
		work:   make([]float32, vocab),
		probs:  make([]float32, vocab),
		counts: make([]int32, vocab),
		cands:  make([]Candidate, 0, vocab),
	}, nil
}

// Validate reports the first setting that makes no sense, naming it.
func (p Params) Validate() error {
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("sampler: %s = %v: want %s: %w", name, v, want, unit00.ErrInvalid)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !finite(p.Temperature):
		return bad("temperature", p.Temperature, "a finite number")
	case !finite(p.TopP) || p.TopP < 0 || p.TopP > 1:
		return bad("top-p", p.TopP, "a number in [0, 1]")
	case !finite(p.MinP) || p.MinP < 0 || p.MinP > 1:
		return bad("min-p", p.MinP, "a number in [0, 1]")
	case !finite(p.RepeatPenalty) || p.RepeatPenalty <= 0:
		return bad("repeat-penalty", p.RepeatPenalty, "a number > 0 (1 is off)")
	case !finite(p.FrequencyPenalty):
		return bad("frequency-penalty", p.FrequencyPenalty, "a finite number")
	case !finite(p.PresencePenalty):
		return bad("presence-penalty", p.PresencePenalty, "a finite number")
	case p.PenaltyLastN < -1:
		return bad("repeat-last-n", p.PenaltyLastN, "−1 (all), 0 (none) or a count")
	}
	return nil
}

// Params returns the sampler's settings.
func (s *Sampler) Params() Params { return s.params }

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
	if len(logits) != s.vocab {
		return nil, fmt.Errorf("sampler: %d logits for a vocabulary of %d: %w", len(logits), s.vocab, unit00.ErrInvalid)
	}
	for i, v := range logits {
		if v != v || v > math.MaxFloat32 {
			return nil, fmt.Errorf("sampler: the logit of token %d is %v: %w", i, v, unit00.ErrInvalid)
		}
	}
	l, err := s.penalize(logits, history)
	if err != nil {
		return nil, err
	}
	p := s.params
	c := s.shortlist(l)
	if len(c) == 0 {
		return nil, fmt.Errorf("sampler: no token has a finite logit: %w", unit00.ErrInvalid)
	}
	if p.Temperature <= 0 {
		c = c[:1]
		c[0].P = 1
		s.cands = c
		return c, nil
	}
	if p.TopK > 0 && p.TopP < 1 { // without top-k, shortlist was the nucleus
		c = topP(c, p.TopP)
	}
	if p.MinP > 0 {
		c = minP(c, p.MinP)
	}
	softmax(c, p.Temperature)
	s.cands = c
	return c, nil
}

// shortlist returns the tokens the cheap first cut keeps: the top-k (one
// for greedy), sorted; else the nucleus of the whole vocabulary; else
// those min-p keeps; else every token with a finite logit.
func (s *Sampler) shortlist(l []float32) []Candidate {
	p := s.params
	switch {
	case p.Temperature <= 0:
		return TopK(s.cands, l, 1)
	case p.TopK > 0:
		return TopK(s.cands, l, p.TopK)
	case p.TopP < 1:
		unit02.SoftmaxRow(s.probs, l, 1, nil)
		return Nucleus(s.cands, l, s.probs, p.TopP)
	}
	c := s.cands[:0]
	floor := math.Inf(-1)
	if p.MinP > 0 { // in float64, as minP: a float32 floor can round above it
		floor = float64(slices.Max(l)) + math.Log(p.MinP)
	}
	for i, v := range l {
		if float64(v) >= floor && !math.IsInf(float64(v), -1) {
			c = append(c, Candidate{ID: i, Logit: v})
		}
	}
	return c
}

// topP keeps the shortest prefix of the sorted candidates whose softmax at
// temperature 1 sums to at least p: the token that crosses p stays in.
func topP(c []Candidate, p float64) []Candidate {
	softmax(c, 1)
	cum := 0.0
	for i := range c {
		cum += c[i].P
		if cum >= p {
			return c[:i+1]
		}
	}
	return c
}

// minP keeps the candidates at least p times as likely as the best: a
// logit of at least the best's + ln p. The order is kept.
func minP(c []Candidate, p float64) []Candidate {
	floor := float64(maxLogit(c)) + math.Log(p)
	keep := c[:0]
	for _, x := range c {
		if float64(x.Logit) >= floor {
			keep = append(keep, x)
		}
	}
	return keep
}

// softmax sets each candidate's P to the softmax of the logits divided by
// temp.
func softmax(c []Candidate, temp float64) {
	top, sum := float64(maxLogit(c)), 0.0
	for i := range c {
		c[i].P = math.Exp((float64(c[i].Logit) - top) / temp)
		sum += c[i].P
	}
	for i := range c {
		c[i].P /= sum
	}
}

func maxLogit(c []Candidate) float32 {
	top := c[0].Logit
	for _, x := range c[1:] {
		top = max(top, x.Logit)
	}
	return top
}

// penalize returns logits with the penalties applied to the tokens of the
// penalty window: logits itself when no penalty is on, else a copy.
func (s *Sampler) penalize(logits []float32, history []int) ([]float32, error) {
	p := s.params
	window := history
	if p.PenaltyLastN >= 0 && len(window) > p.PenaltyLastN {
		window = window[len(window)-p.PenaltyLastN:]
	}
	for _, t := range window {
		if t < 0 || t >= s.vocab {
			return nil, fmt.Errorf("sampler: history token %d is outside the vocabulary of %d: %w", t, s.vocab, unit00.ErrInvalid)
		}
	}
	off := p.RepeatPenalty == 1 && p.FrequencyPenalty == 0 && p.PresencePenalty == 0
	if off || len(window) == 0 {
		return logits, nil
	}
	l := s.work
	copy(l, logits)
	for _, t := range window {
		s.counts[t]++
	}
	for _, t := range window {
		n := s.counts[t]
		if n == 0 {
			continue // a repeat: this token was penalized already
		}
		s.counts[t] = 0
		v := l[t]
		if v <= 0 {
			v *= float32(p.RepeatPenalty)
		} else {
			v /= float32(p.RepeatPenalty)
		}
		l[t] = v - float32(float64(n)*p.FrequencyPenalty+p.PresencePenalty)
	}
	return l, nil
}

// Sample runs Candidates and draws one of them with its probability from
// the sampler's random source. Errors are those of Candidates.
func (s *Sampler) Sample(logits []float32, history []int) (int, error) {
	c, err := s.Candidates(logits, history)
	if err != nil {
		return 0, err
	}
	r := s.rng.Float64()
	for _, cand := range c {
		r -= cand.P
		if r < 0 {
			return cand.ID, nil
		}
	}
	return c[len(c)-1].ID, nil // r was within rounding of 1
}
