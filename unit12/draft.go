package unit12

import (
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
	"math/rand/v2"
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
	panic("TODO(12.3): write NewModelDrafter, see docs/unit12.md")
}

// Vocab is the draft model's vocabulary size.
func (d *ModelDrafter) Vocab() int {
	panic("TODO(12.3): write ModelDrafter.Vocab, see docs/unit12.md")
}

// Draft proposes up to n tokens (at most maxDraft) after history, each
// sampled from the draft model's distribution, which it returns with it.
// It proposes fewer when the draft model's context has no room for more,
// and none when history is empty or does not fit in it. A history token
// outside the vocabulary, or a sampler error (a NaN logit), is an error
// wrapping unit00.ErrInvalid.
func (d *ModelDrafter) Draft(history []int, n int) ([]int, [][]float64, error) {
	panic("TODO(12.3): write ModelDrafter.Draft, see docs/unit12.md")
}

// Prime runs history, but its last token, through the draft model, so
// that the first Draft after history has only that token to run: a
// Speculator primes its drafter with the prompt while the target prefills
// it. What the cache already shares with history is kept. A history of
// fewer than 2 tokens, or one that does not fit in the draft model's
// context, leaves nothing to do. A history token outside the vocabulary is
// an error wrapping unit00.ErrInvalid.
func (d *ModelDrafter) Prime(history []int) error {
	panic("TODO(12.3): write ModelDrafter.Prime, see docs/unit12.md")
}
