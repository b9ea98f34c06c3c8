// Package unit11 turns a model's logits into text: samplers that pick the
// next token the way llama.cpp does by default (11.1), fast enough for a
// vocabulary of 128k tokens (11.2), the generation loop over a unit07
// session (11.3), and text streamed as it comes, whole characters only,
// with stop strings and cancellation (11.4).
//
// Read docs/unit11.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit11

// Params are a sampler's settings, named after llama.cpp's flags (in
// brackets). The zero value is not useful: start from DefaultParams.
type Params struct {
	Temperature      float64 // [--temp] ≤ 0 picks the highest logit (greedy)
	TopK             int     // [--top-k] keep the TopK most likely tokens; ≤ 0 keeps all
	TopP             float64 // [--top-p] keep the fewest tokens whose probability sums to TopP; 1 keeps all
	MinP             float64 // [--min-p] keep tokens at least MinP times as likely as the best; 0 keeps all
	RepeatPenalty    float64 // [--repeat-penalty] divide (or multiply, if negative) a seen token's logit; 1 is off
	FrequencyPenalty float64 // [--frequency-penalty] subtract count × this from a seen token's logit
	PresencePenalty  float64 // [--presence-penalty] subtract this from a seen token's logit
	PenaltyLastN     int     // [--repeat-last-n] the penalties see this many recent tokens; 0 none, −1 all
	Seed             uint64  // [--seed] the random source's seed: equal seeds replay equal draws
}

// DefaultParams are llama.cpp's defaults: temperature 0.8, top-k 40,
// top-p 0.95, min-p 0.05, penalties off over the last 64 tokens.
func DefaultParams() Params {
	return Params{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1, PenaltyLastN: 64}
}

// Candidate is a token the sampler may still pick: its id, its logit
// after the penalties, and, once the chain has run, its probability.
type Candidate struct {
	ID    int
	Logit float32
	P     float64
}

// StopReason says why generation ended.
type StopReason int

const (
	StopEOS       StopReason = iota // the model produced a stop token (EOS)
	StopLength                      // MaxTokens were generated
	StopContext                     // the context is full: no position left for another token
	StopRequested                   // Options.OnToken asked to stop
	StopString                      // a stop string appeared in the text (Run)
	StopCanceled                    // the context.Context was canceled
)

// String names the reason as the OpenAI API's finish_reason does where
// one exists ("stop", "length").
func (r StopReason) String() string {
	switch r {
	case StopEOS, StopString:
		return "stop"
	case StopLength:
		return "length"
	case StopContext:
		return "context"
	case StopRequested:
		return "requested"
	case StopCanceled:
		return "canceled"
	}
	return "StopReason(?)"
}
