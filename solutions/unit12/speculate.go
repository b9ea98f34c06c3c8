package unit12

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
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
	vocab := s.Model.Config.Vocab
	if d.Vocab() != vocab {
		return nil, fmt.Errorf("speculate: the drafter's vocabulary has %d tokens, the target's %d: they must be the same: %w", d.Vocab(), vocab, unit00.ErrInvalid)
	}
	if maxDraft < 1 {
		return nil, fmt.Errorf("speculate: at most %d drafted tokens a pass: want ≥ 1: %w", maxDraft, unit00.ErrInvalid)
	}
	sc, err := NewScorer(s, maxDraft+1)
	if err != nil {
		return nil, err
	}
	return &Speculator{
		s: s, smp: smp, d: d, sc: sc, max: maxDraft,
		rng: rand.New(rand.NewPCG(smp.Params().Seed, 0x7370656320)), // "spec "
		p:   make([]float64, vocab), r: make([]float64, vocab), oneHot: make([]float64, vocab),
	}, nil
}

// Generate runs prompt through the target's session (after whatever it
// holds already) and generates as unit11's Generate does: until a stop
// token, MaxTokens, the end of the context, OnToken returning false, or
// ctx being canceled, with the same errors and stop reasons: a prompt
// that does not fit is an error wrapping unit07.ErrContextFull. The prompt's
// last token goes through the target in the first verification pass, with
// the first draft, so every generated token comes from the rule. A
// drafter that is a Primer is primed with the prompt after that prefill,
// inside PromptTime; its error ends the call before any token.
//
// On return the session holds the prompt and the generated tokens, or all
// of them but the last; the counts in the Result say how the drafter did.
// opt.Draft outside [1, maxDraft] or opt.MinDraft > opt.Draft is an error
// wrapping unit00.ErrInvalid.
func (sp *Speculator) Generate(ctx context.Context, prompt []int, opt Options) (Result, error) {
	var res Result
	if err := sp.check(prompt, opt); err != nil {
		return res, err
	}
	base, start := sp.s.Len(), time.Now()
	err := prefill(ctx, sp.s, prompt[:len(prompt)-1])
	if err != nil { // the prompt was checked: only ctx can stop its prefill
		res.Stop = unit11.StopCanceled
	} else if p, ok := sp.d.(Primer); ok {
		if err = p.Prime(prompt); err != nil {
			err = fmt.Errorf("speculate: priming the drafter with the prompt: %w", err)
		}
	}
	res.PromptTime = time.Since(start)
	if err != nil {
		return res, err
	}
	start = time.Now()
	err = sp.loop(ctx, prompt, opt, &res)
	res.GenTime = time.Since(start)
	// The cache keeps only tokens that are in the text: a pass that ended
	// at a stop token or a limit may hold drafted tokens past it.
	if terr := sp.s.Truncate(min(sp.s.Len(), base+len(prompt)+len(res.Tokens))); terr != nil {
		panic(terr) // never more than the cache holds
	}
	return res, err
}

// check refuses what Generate cannot run, before anything is processed.
func (sp *Speculator) check(prompt []int, opt Options) error {
	vocab := sp.s.Model.Config.Vocab
	switch {
	case opt.Draft < 1 || opt.Draft > sp.max:
		return fmt.Errorf("speculate: a draft of %d tokens: want 1 to %d: %w", opt.Draft, sp.max, unit00.ErrInvalid)
	case opt.MinDraft > opt.Draft:
		return fmt.Errorf("speculate: a minimum draft of %d tokens, more than the maximum of %d: %w", opt.MinDraft, opt.Draft, unit00.ErrInvalid)
	case len(prompt) == 0:
		return fmt.Errorf("speculate: an empty prompt: %w", unit00.ErrInvalid)
	}
	for i, t := range prompt {
		if t < 0 || t >= vocab {
			return fmt.Errorf("speculate: prompt token %d is %d, outside the vocabulary of %d: %w", i, t, vocab, unit00.ErrInvalid)
		}
	}
	if free := sp.s.Cache.Cap() - sp.s.Len(); len(prompt) > free {
		return fmt.Errorf("speculate: a prompt of %d tokens, with %d positions left in the context: %w", len(prompt), free, unit07.ErrContextFull)
	}
	return nil
}

// loop is Generate after the prefill: one target pass after another.
func (sp *Speculator) loop(ctx context.Context, prompt []int, opt Options, res *Result) error {
	sp.text = append(sp.text[:0], prompt...) // its last token is not yet in the target's cache
	for {
		if err := ctx.Err(); err != nil {
			res.Stop = unit11.StopCanceled
			return err
		}
		draft, q, err := sp.propose(opt, len(res.Tokens))
		if err != nil {
			return err
		}
		if stop, err := sp.pass(draft, q, opt, res); stop || err != nil {
			return err
		}
	}
}

// pass scores the text's last token and draft in one target pass, judges
// the drafted tokens in order, and adds to the text those that stand and
// one more: the resampled token at the first rejection, or a bonus token
// from the last row when none is rejected. It reports whether generation
// is over.
func (sp *Speculator) pass(draft []int, q [][]float64, opt Options, res *Result) (bool, error) {
	pos := sp.s.Len()
	sp.batch = append(append(sp.batch[:0], sp.text[len(sp.text)-1]), draft...)
	rows, err := sp.sc.Score(sp.batch)
	if err != nil {
		return false, fmt.Errorf("speculate: token %d: %w", len(res.Tokens), err)
	}
	res.Passes++
	res.Drafted += len(draft)
	var kept, next int // tokens accepted; the token that ends the pass
	rejected := false
	for i, x := range draft {
		p, err := sp.target(rows.Row(i))
		if err != nil {
			return false, fmt.Errorf("speculate: token %d: %w", len(res.Tokens), err)
		}
		ok, resampled := sp.judge(p, q, i, x)
		if !ok {
			res.Rejected++
			next, rejected = resampled, true
			break
		}
		res.Accepted++
		kept++
		sp.text = append(sp.text, x)
		if emit(x, opt, res) {
			return true, nil
		}
	}
	if !rejected { // every drafted token stood: one more from the last row
		p, err := sp.target(rows.Row(len(draft)))
		if err != nil {
			return false, fmt.Errorf("speculate: token %d: %w", len(res.Tokens), err)
		}
		next = Draw(p, sp.rng.Float64())
	}
	// The rejected tokens' keys and values go; the last token's and the
	// accepted ones' stay.
	if err := sp.s.Truncate(pos + 1 + kept); err != nil {
		panic(err) // shorter than what Score left
	}
	sp.text = append(sp.text, next)
	if emit(next, opt, res) {
		return true, nil
	}
	if sp.s.Len() >= sp.s.Cache.Cap() {
		res.Stop = unit11.StopContext
		return true, nil
	}
	return false, nil
}

// propose asks the drafter for the tokens of the next pass: as many as
// opt.Draft, the context and MaxTokens leave room for, and none when it
// offers fewer than opt.MinDraft.
func (sp *Speculator) propose(opt Options, generated int) ([]int, [][]float64, error) {
	n := min(opt.Draft, sp.s.Cache.Cap()-sp.s.Len()-1)
	if opt.MaxTokens > 0 {
		n = min(n, opt.MaxTokens-generated-1)
	}
	if n <= 0 {
		return nil, nil, nil
	}
	draft, q, err := sp.d.Draft(sp.text, n)
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("speculate: token %d: %w", generated, err)
	case len(draft) > n || (q != nil && len(q) != len(draft)):
		return nil, nil, fmt.Errorf("speculate: asked the drafter for %d tokens, it gave %d with %d distributions", n, len(draft), len(q))
	case len(draft) < opt.MinDraft:
		return nil, nil, nil
	}
	return draft, q, nil // Score refuses a token outside the vocabulary
}

// target is the target's distribution for a row of logits after the text.
func (sp *Speculator) target(logits []float32) ([]float64, error) {
	c, err := sp.smp.Candidates(logits, sp.text)
	if err != nil {
		return nil, err
	}
	return Dense(sp.p, c), nil
}

// judge applies the rule to drafted token i, x: whether it stands, and if
// not, the token resampled in its place.
func (sp *Speculator) judge(p []float64, q [][]float64, i, x int) (bool, int) {
	qi := sp.oneHot
	if q != nil && q[i] != nil {
		qi = q[i]
	} else {
		qi[x] = 1
		defer func() { qi[x] = 0 }()
	}
	if Accept(p, qi, x, sp.rng.Float64()) {
		return true, x
	}
	return false, Draw(Residual(sp.r, p, qi), sp.rng.Float64())
}

// emit adds tok to the generated tokens unless it is a stop token, and
// reports whether generation is over, as unit11's loop does.
func emit(tok int, opt Options, res *Result) bool {
	if slices.Contains(opt.StopTokens, tok) {
		res.Stop = unit11.StopEOS
		return true
	}
	res.Tokens = append(res.Tokens, tok)
	switch {
	case opt.OnToken != nil && !opt.OnToken(tok):
		res.Stop = unit11.StopRequested
		return true
	case opt.MaxTokens > 0 && len(res.Tokens) >= opt.MaxTokens:
		res.Stop = unit11.StopLength
		return true
	}
	return false
}

// prefillChunk is how many prompt tokens go through the target between two
// looks at ctx, as in unit11.
const prefillChunk = 64

// prefill runs tokens (possibly none) through s in chunks, checking ctx
// before each.
func prefill(ctx context.Context, s *unit07.Session, tokens []int) error {
	for i := 0; i < len(tokens); i += prefillChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := s.Prefill(tokens[i:min(i+prefillChunk, len(tokens))]); err != nil {
			return fmt.Errorf("speculate: prompt: %w", err)
		}
	}
	return nil
}
