package unit11

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit07"
)

// Options bound a generation.
type Options struct {
	// MaxTokens stops generation after this many tokens; ≤ 0 lets it run
	// until a stop token or the end of the context.
	MaxTokens int
	// StopTokens end generation when sampled (usually the model's EOS);
	// a stop token is not part of the output.
	StopTokens []int
	// OnToken, if set, is called with each generated token as soon as it
	// is sampled; returning false stops generation (StopRequested).
	OnToken func(id int) bool
}

// Result is what a generation produced.
type Result struct {
	Tokens     []int         // the generated tokens, a stop token left out
	Text       string        // the text of the tokens (set by Run)
	Stop       StopReason    // why it ended
	PromptTime time.Duration // the prefill of the prompt
	GenTime    time.Duration // sampling and decoding after the prefill
}

// prefillChunk is how many prompt tokens go through the model between two
// looks at the context: a long prompt can be canceled part way.
const prefillChunk = 64

// Generate runs prompt through s (after whatever s holds already), then
// samples a token, feeds it back, and repeats until a stop token,
// MaxTokens, the end of the context, OnToken returning false, or ctx being
// canceled. The sampler's penalties see the prompt and the generated
// tokens.
//
// The context policy: a prompt that does not fit is an error wrapping
// unit07.ErrContextFull, before anything is processed. Generation that
// fills the context stops with StopContext and no error: the last token
// sampled is returned, though the model never saw it.
//
// Cancellation is checked between decode steps and between prefill chunks
// of at most 64 tokens (prefillChunk); a canceled ctx returns the tokens so far, Stop
// StopCanceled, and ctx's error. Any other error (a token outside the
// vocabulary, a NaN logit) is returned with the tokens so far.
func Generate(ctx context.Context, s *unit07.Session, smp *Sampler, prompt []int, opt Options) (Result, error) {
	var res Result
	if len(prompt) == 0 {
		return res, fmt.Errorf("generate: an empty prompt: %w", unit00.ErrInvalid)
	}
	for i, t := range prompt { // all checked first: a chunk must not fail half way
		if t < 0 || t >= s.Model.Config.Vocab {
			return res, fmt.Errorf("generate: prompt token %d is %d, outside the vocabulary of %d: %w", i, t, s.Model.Config.Vocab, unit00.ErrInvalid)
		}
	}
	if free := s.Cache.Cap() - s.Len(); len(prompt) > free {
		return res, fmt.Errorf("generate: a prompt of %d tokens, with %d positions left in the context: %w", len(prompt), free, unit07.ErrContextFull)
	}
	start := time.Now()
	logits, err := prefill(ctx, s, prompt)
	res.PromptTime = time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			res.Stop = StopCanceled
		}
		return res, err
	}
	start = time.Now()
	err = decode(ctx, s, smp, logits, slices.Clip(prompt), opt, &res)
	res.GenTime = time.Since(start)
	return res, err
}

// decode is Generate's loop after the prefill: sample, stop or feed back.
func decode(ctx context.Context, s *unit07.Session, smp *Sampler, logits []float32, history []int, opt Options, res *Result) error {
	for {
		if err := ctx.Err(); err != nil {
			res.Stop = StopCanceled
			return err
		}
		id, err := smp.Sample(logits, history)
		if err != nil {
			return fmt.Errorf("generate: token %d: %w", len(res.Tokens), err)
		}
		if slices.Contains(opt.StopTokens, id) {
			res.Stop = StopEOS
			return nil
		}
		res.Tokens = append(res.Tokens, id)
		history = append(history, id) // a copy: history was clipped
		switch {
		case opt.OnToken != nil && !opt.OnToken(id):
			res.Stop = StopRequested
			return nil
		case opt.MaxTokens > 0 && len(res.Tokens) >= opt.MaxTokens:
			res.Stop = StopLength
			return nil
		case s.Len() >= s.Cache.Cap():
			res.Stop = StopContext
			return nil
		}
		if logits, err = s.Step(id); err != nil {
			return fmt.Errorf("generate: token %d: %w", len(res.Tokens)-1, err)
		}
	}
}

// prefill runs the prompt in chunks, checking ctx before each.
func prefill(ctx context.Context, s *unit07.Session, prompt []int) ([]float32, error) {
	var logits []float32
	for i := 0; i < len(prompt); i += prefillChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		if logits, err = s.Prefill(prompt[i:min(i+prefillChunk, len(prompt))]); err != nil {
			return nil, fmt.Errorf("generate: prompt: %w", err)
		}
	}
	return logits, nil
}
