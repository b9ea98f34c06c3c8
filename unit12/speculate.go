package unit12

import (
	"context"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
	"math/rand/v2"
)

// Speculator generates with a target model and a drafter: each target
// pass scores the last token and up to γ drafted ones, and the rule of
// Accept and Residual turns the scores into between 1 and γ+1 tokens. The
// tokens are distributed exactly as unit11's Generate would sample them
// from the target alone with the same sampler settings; with temperature
// ≤ 0 they are the same tokens. A Speculator keeps its buffers between
// calls and is not safe for concurrent use.
type Speculator struct {
	s      *unit07.Session
	smp    *unit11.Sampler
	d      Drafter
	sc     *Scorer
	rng    *rand.Rand
	max    int
	p      []float64 // the target's distribution at the position being judged
	r      []float64 // the residual a rejected position is resampled from
	oneHot []float64 // q of a deterministic draft
	batch  []int     // the last token and the draft, one target pass
	text   []int     // the prompt and the tokens generated
}

// NewSpeculator returns a speculator over the target's session s, with
// its sampler smp and drafter d, verifying at most maxDraft drafted tokens
// a pass. A drafter with another vocabulary size than the target's is
// refused, as is maxDraft < 1: errors wrapping unit00.ErrInvalid.
func NewSpeculator(s *unit07.Session, smp *unit11.Sampler, d Drafter, maxDraft int) (*Speculator, error) {
	panic("TODO(12.3): write NewSpeculator, see docs/unit12.md")
}

// Generate runs prompt through the target's session (after whatever it
// holds already) and generates as unit11's Generate does: until a stop
// token, MaxTokens, the end of the context, OnToken returning false, or
// ctx being canceled, with the same errors and stop reasons: a prompt
// that does not fit is an error wrapping unit07.ErrContextFull. The prompt's
// last token goes through the target in the first verification pass, with
// the first draft, so every generated token comes from the rule.
//
// On return the session holds the prompt and the generated tokens, or all
// of them but the last; the counts in the Result say how the drafter did.
// opt.Draft outside [1, maxDraft] or opt.MinDraft > opt.Draft is an error
// wrapping unit00.ErrInvalid.
func (sp *Speculator) Generate(ctx context.Context, prompt []int, opt Options) (Result, error) {
	panic("TODO(12.3): write Speculator.Generate, see docs/unit12.md")
}
