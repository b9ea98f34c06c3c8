package unit11

import (
	"context"
	"time"

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

// Generate runs prompt through s (after whatever s holds already), then
// samples a token, feeds it back, and repeats until a stop token,
// MaxTokens, the end of the context, OnToken returning false, or ctx being
// canceled. The sampler's penalties see the prompt and the generated
// tokens.
//
// An empty prompt, or a prompt token outside the vocabulary, is an error
// wrapping unit00.ErrInvalid that says which (the token and its index),
// before anything is processed.
//
// The context policy: a prompt that does not fit is an error wrapping
// unit07.ErrContextFull, before anything is processed; one that fits
// exactly is not. Generation that
// fills the context stops with StopContext and no error: the last token
// sampled is returned, though the model never saw it.
//
// Cancellation is checked between decode steps and between prefill chunks
// of at most 64 tokens; a canceled ctx returns the tokens so far, Stop
// StopCanceled, and ctx's error. Any other error (a token outside the
// vocabulary, a NaN logit) is returned with the tokens so far.
func Generate(ctx context.Context, s *unit07.Session, smp *Sampler, prompt []int, opt Options) (Result, error) {
	panic("TODO(11.3): write Generate, see docs/unit11.md")
}
