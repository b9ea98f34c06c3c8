package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
	"github.com/llmforge/forge/unit12"
)

// specOptions are llm run's speculative decoding flags (unit12), with
// llama.cpp's names: a draft model (--model-draft) or prompt lookup
// (--lookup), and how many tokens a target pass verifies.
type specOptions struct {
	draft              string
	lookup             bool
	draftMax, draftMin int
}

// defaultDraftMax is γ without --draft-max: 3, where unit12's measurements
// (BenchmarkMeasure12_Gamma: an F16 TinyLlama-shaped target drafted for by
// its Q4_0 copy, α ≈ 0.86–0.90, on Zen 4) put the speed-up at its best,
// ×1.74 and ×1.63 at temperatures 0 and 0.8, while a pass of γ+1 tokens
// still costs about one decode step; longer drafts gain no more there,
// and a draft that goes wrong early wastes more. llama.cpp's default is 16, with a cut-off
// (--draft-p-min) that ends a draft when the draft model is unsure.
const defaultDraftMax = 3

// lookupMinN and lookupMaxN are the n-gram sizes prompt lookup matches.
const lookupMinN, lookupMaxN = 2, 4

func specFlags(fs *flagSet, o *specOptions) {
	o.draftMax = defaultDraftMax
	fs.str(&o.draft, "md,model-draft", "FILE", "speculative decoding: a smaller model with the same vocabulary drafts tokens that the model (-m) verifies")
	fs.boolean(&o.lookup, "lookup", "speculative decoding by prompt lookup: draft what followed the last earlier appearance of the text's last tokens")
	fs.integer(&o.draftMax, "draft-max,draft", "N", fmt.Sprintf("speculative decoding: draft at most N tokens a pass (default %d)", defaultDraftMax), func(n int) string {
		if n < 1 || n > 64 {
			return "want a count from 1 to 64"
		}
		return ""
	})
	fs.integer(&o.draftMin, "draft-min", "N", "speculative decoding: verify no draft shorter than N tokens (default 0)", atLeast(0))
}

// on reports whether speculative decoding was asked for, and refuses
// flags that do not go together.
func (o *specOptions) on(e *env) (bool, error) {
	switch {
	case o.draft != "" && o.lookup:
		return false, usagef("give --model-draft FILE or --lookup, not both")
	case o.draftMin > o.draftMax:
		return false, usagef("--draft-min %d is more than --draft-max %d", o.draftMin, o.draftMax)
	case o.draft == "" && !o.lookup && (e.given("draft-max") || e.given("draft-min")):
		return false, usagef("--draft-max and --draft-min need --model-draft FILE or --lookup")
	}
	return o.draft != "" || o.lookup, nil
}

// drafter is the unit12 drafter the flags ask for, with the draft model
// it loaded (nil for prompt lookup), which the caller closes.
func (o *specOptions) drafter(e *env, target *model, ctx, threads int, kv cacheTypes, params unit11.Params) (unit12.Drafter, *model, error) {
	newDrafter, dm, err := o.drafters(e, target, ctx, threads, kv, params)
	if err != nil {
		return nil, nil, err
	}
	d, err := newDrafter()
	if err != nil {
		if dm != nil {
			dm.Close()
		}
		return nil, nil, err
	}
	return d, dm, nil
}

// drafters loads what the flags ask for and returns a function that makes
// a drafter with an empty cache of its own each time it is called (llm
// bench's repetitions start afresh), and the draft model (nil for prompt
// lookup), which the caller closes.
func (o *specOptions) drafters(e *env, target *model, ctx, threads int, kv cacheTypes, params unit11.Params) (func() (unit12.Drafter, error), *model, error) {
	if o.lookup {
		return func() (unit12.Drafter, error) {
			return unit12.NewLookup(target.net.Config.Vocab, lookupMinN, lookupMaxN)
		}, nil, nil
	}
	dm, err := loadModelOn(e, o.draft, ctx, threads, "-c", kv, target.pool)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return nil, nil, &exitError{status: ee.status, msg: "--model-draft: " + ee.msg}
		}
		return nil, nil, fmt.Errorf("--model-draft: %w", err)
	}
	if err := sameVocab(modelVocab(target), modelVocab(dm)); err != nil {
		dm.Close()
		return nil, nil, usagef("--model-draft %s: %v: a draft model must share the model's vocabulary", o.draft, err)
	}
	if _, err := unit11.NewSampler(dm.net.Config.Vocab, params); err != nil {
		dm.Close()
		return nil, nil, usagef("%v", err)
	}
	return func() (unit12.Drafter, error) {
		smp, err := unit11.NewSampler(dm.net.Config.Vocab, params)
		if err != nil {
			return nil, err
		}
		return unit12.NewModelDrafter(unit07.NewSession(dm.net), smp, o.draftMax)
	}, dm, nil
}

// sameVocab says where two vocabularies differ: in size, or in the first
// token whose text is not the same.
func sameVocab(target, draft *vocab) error {
	if a, b := target.VocabSize(), draft.VocabSize(); a != b {
		return fmt.Errorf("its vocabulary has %d tokens, the model's %d", b, a)
	}
	for id := range target.VocabSize() {
		if a, b := target.text(id), draft.text(id); a != b {
			return fmt.Errorf("token %d is %s in it, %s in the model", id, quote(b), quote(a))
		}
	}
	return nil
}

// runSpeculative is unit11.Run with a unit12.Speculator in place of
// unit11.Generate: the text streamed as it comes, stop strings, the text
// held back flushed at a normal end.
func runSpeculative(ctx context.Context, s *unit07.Session, smp *unit11.Sampler, d unit12.Drafter, tok *unit04.Tokenizer, prompt []int, stops []string, opt unit12.Options, emit func(string) error) (unit12.Result, error) {
	sp, err := unit12.NewSpeculator(s, smp, d, opt.Draft)
	if err != nil {
		return unit12.Result{}, err
	}
	ts := unit11.NewTextStream(tok, prompt, stops)
	var text strings.Builder
	var emitErr error
	stopped := false
	send := func(piece string) bool {
		if piece == "" {
			return true
		}
		if emitErr = emit(piece); emitErr != nil {
			return false
		}
		text.WriteString(piece)
		return true
	}
	opt.OnToken = func(id int) bool {
		piece, stop := ts.Push(id)
		stopped = stop
		return send(piece) && !stop
	}
	res, err := sp.Generate(ctx, prompt, opt)
	switch {
	case emitErr != nil:
		err = emitErr
	case stopped:
		res.Stop = unit11.StopString
	case err == nil:
		send(ts.Flush())
		err = emitErr
	}
	res.Text = text.String()
	return res, err
}

// specJSON is --json's account of speculative decoding.
type specJSON struct {
	Drafter       string  `json:"drafter"` // "model" or "lookup"
	DraftMax      int     `json:"draft_max"`
	Passes        int     `json:"passes"`
	Drafted       int     `json:"drafted"`
	Accepted      int     `json:"accepted"`
	Rejected      int     `json:"rejected"`
	Acceptance    float64 `json:"acceptance"`
	TokensPerPass float64 `json:"tokens_per_pass"`
}

func (o *specOptions) report(r unit12.Result) *specJSON {
	kind := "model"
	if o.lookup {
		kind = "lookup"
	}
	return &specJSON{Drafter: kind, DraftMax: o.draftMax, Passes: r.Passes, Drafted: r.Drafted, Accepted: r.Accepted,
		Rejected: r.Rejected, Acceptance: r.AcceptanceRate(), TokensPerPass: r.TokensPerPass()}
}

// line is the stats line's account: the acceptance rate and the tokens a
// target pass yields.
func (s *specJSON) line() string {
	return fmt.Sprintf(" | draft (%s): %d of %d judged accepted (%.1f%%), %.2f tokens per target pass",
		s.Drafter, s.Accepted, s.Accepted+s.Rejected, 100*s.Acceptance, s.TokensPerPass)
}
