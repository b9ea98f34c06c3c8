package unit13

import "github.com/llmforge/forge/unit11"

// Request is one generation a Scheduler runs.
type Request struct {
	Prompt []int32 // its tokens, at least one
	// Sampler draws its tokens: its own, seeded as the request asks, so
	// that what it generates does not depend on what runs beside it.
	Sampler *unit11.Sampler
	// MaxTokens ends it after this many generated tokens; ≤ 0 lets it run
	// until a stop token or the end of its context.
	MaxTokens int
	// StopTokens end it when sampled (the model's EOS); a stop token is
	// not reported as a token.
	StopTokens []int
}

// Event is what one Step did for one request: a token it generated, its
// end, or both (the last token of a request that reached MaxTokens or the
// end of its context).
type Event struct {
	ID    int // the id Add returned
	Token int // the token generated, −1 if none (the request ended without one)
	Done  bool
	// Stop says why it ended, when Done: StopEOS (a stop token), StopLength
	// (MaxTokens), StopContext (no position left), StopCanceled (Cancel,
	// or an error).
	Stop unit11.StopReason
	// Err is the error that ended it, if one did (the sampler's, on a NaN
	// logit); Stop is then StopCanceled.
	Err error
}

// SchedOptions bound what a Scheduler runs at once.
type SchedOptions struct {
	// MaxRunning is the most requests admitted at once, each holding
	// blocks (llama-server's slots, -np): at least 1.
	MaxRunning int
	// StepTokens is the token budget of one step, from MaxRunning (a
	// decode token for every running request) to the runner's MaxTokens:
	// the decode tokens of the running requests, then chunks of prompts
	// up to what is left of it.
	StepTokens int
}
