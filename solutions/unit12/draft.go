package unit12

import (
	"fmt"
	"math/rand/v2"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
)

// ModelDrafter drafts with a second, smaller model: it samples γ tokens
// from the draft model's own distributions, one decode step each. Its
// session keeps the draft model's KV cache, and before each draft it
// takes the cache back to the longest prefix that still agrees with the
// text, so the draft model never recomputes an accepted position and
// never attends to a rejected one. A ModelDrafter is not safe for
// concurrent use.
type ModelDrafter struct {
	s    *unit07.Session
	smp  *unit11.Sampler
	rng  *rand.Rand
	fed  []int       // the tokens whose keys and values s holds, in order
	hist []int       // the history and the tokens drafted so far, for the penalties
	toks []int       // the proposal
	q    [][]float64 // the distribution of each proposed token, maxDraft × Vocab
}

// NewModelDrafter returns a drafter over the draft model's session s,
// sampling with smp (its own sampler, with the draft's settings and seed),
// proposing at most maxDraft tokens a call. s must be empty: the drafter
// keeps track of what its cache holds (and starts over if the session is
// reset or truncated behind its back). maxDraft < 1 or a session that is
// not empty is an error wrapping unit00.ErrInvalid.
func NewModelDrafter(s *unit07.Session, smp *unit11.Sampler, maxDraft int) (*ModelDrafter, error) {
	if maxDraft < 1 {
		return nil, fmt.Errorf("draft: at most %d tokens a call: want ≥ 1: %w", maxDraft, unit00.ErrInvalid)
	}
	if s.Len() != 0 {
		return nil, fmt.Errorf("draft: the draft session holds %d positions: want an empty one: %w", s.Len(), unit00.ErrInvalid)
	}
	vocab := s.Model.Config.Vocab
	q := make([][]float64, maxDraft)
	for i := range q {
		q[i] = make([]float64, vocab)
	}
	return &ModelDrafter{s: s, smp: smp, q: q, rng: rand.New(rand.NewPCG(smp.Params().Seed, 0x6472616674))}, nil // "draft"
}

// Vocab is the draft model's vocabulary size.
func (d *ModelDrafter) Vocab() int { return d.s.Model.Config.Vocab }

// Draft proposes up to n tokens (at most maxDraft) after history, each
// sampled from the draft model's distribution, which it returns with it.
// It proposes fewer when the draft model's context has no room for more,
// and none when history is empty or does not fit in it. A history token
// outside the vocabulary, or a sampler error (a NaN logit), is an error
// wrapping unit00.ErrInvalid.
func (d *ModelDrafter) Draft(history []int, n int) ([]int, [][]float64, error) {
	d.toks = d.toks[:0]
	n = min(n, len(d.q), d.s.Cache.Cap()-len(history)+1)
	if n <= 0 || len(history) == 0 {
		return nil, nil, nil
	}
	logits, err := d.catchUp(history)
	if err != nil {
		return nil, nil, err
	}
	d.hist = append(d.hist[:0], history...)
	for i := range n {
		if i > 0 { // the token drafted last goes in for the next one's logits
			if logits, err = d.s.Step(d.toks[i-1]); err != nil {
				panic(err) // a token of the vocabulary, with room checked above
			}
			d.fed = append(d.fed, d.toks[i-1])
		}
		c, err := d.smp.Candidates(logits, d.hist)
		if err != nil {
			return nil, nil, fmt.Errorf("draft: token %d: %w", i, err)
		}
		x := Draw(Dense(d.q[i], c), d.rng.Float64())
		d.toks = append(d.toks, x)
		d.hist = append(d.hist, x)
	}
	return d.toks, d.q[:n], nil
}

// Prime runs history, but its last token, through the draft model, so
// that the first Draft after history has only that token to run: a
// Speculator primes its drafter with the prompt while the target prefills
// it. What the cache already shares with history is kept. A history of
// fewer than 2 tokens, or one that does not fit in the draft model's
// context, leaves nothing to do. A history token outside the vocabulary is
// an error wrapping unit00.ErrInvalid.
func (d *ModelDrafter) Prime(history []int) error {
	if len(history) < 2 || len(history) > d.s.Cache.Cap() {
		return nil
	}
	_, err := d.catchUp(history[:len(history)-1])
	return err
}

// catchUp brings the cache to history: it keeps the longest prefix of
// what the cache holds that history shares, less at least the last token
// of history, whose logits the first draft needs, and runs the rest.
func (d *ModelDrafter) catchUp(history []int) ([]float32, error) {
	if len(d.fed) != d.s.Len() { // the session was reset or truncated by someone else
		d.fed = d.fed[:0]
		d.s.Reset()
	}
	keep := 0
	for keep < len(d.fed) && keep < len(history)-1 && d.fed[keep] == history[keep] {
		keep++
	}
	if err := d.s.Truncate(keep); err != nil {
		panic(err) // keep ≤ len(d.fed), which is what the session holds
	}
	d.fed = d.fed[:keep]
	logits, err := d.s.Prefill(history[keep:])
	if err != nil {
		return nil, fmt.Errorf("draft: %w", err)
	}
	d.fed = append(d.fed, history[keep:]...)
	return logits, nil
}
