// Package unit12 is speculative decoding: a cheap drafter proposes several
// tokens, the target model checks them all in one pass, and an acceptance
// rule keeps the output distributed exactly as the target's own sampling
// would have it. The target scores many tokens in one pass over its KV
// cache (12.1); the rule accepts or resamples each drafted token (12.2);
// a draft model proposes tokens from a cache of its own that follows the
// accepted text (12.3); and prompt lookup proposes, with no second model,
// what followed the last time the context's recent tokens appeared
// (12.4).
//
// Read docs/unit12.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit12

import "github.com/llmforge/forge/unit11"

// A Drafter proposes the tokens that may follow a text, for the target
// model to verify.
type Drafter interface {
	// Vocab is the size of the vocabulary the drafter's token ids come from.
	Vocab() int

	// Draft proposes at most n tokens to follow history (the prompt and
	// every token generated so far, oldest first). With each token it
	// returns the distribution q it was drawn from, a probability for every
	// id of the vocabulary; a nil q[i] says token i was chosen
	// deterministically (q is 1 on it and 0 elsewhere). Fewer than n
	// tokens, even none, is a valid answer. Both slices are the drafter's
	// own, valid until its next call.
	Draft(history []int, n int) (tokens []int, q [][]float64, err error)
}

// A Primer is a Drafter with work to do on the prompt before its first
// draft: a draft model runs the prompt through its own cache. Generate
// primes a drafter that is a Primer with the prompt right after the
// target's prefill, so that the time counts as the prompt's, as the
// target's own prefill does, and not as the first generated token's.
type Primer interface {
	// Prime prepares the drafter for a first Draft after prompt. An error
	// ends the generation before any token.
	Prime(prompt []int) error
}

// Options bound a speculative generation: unit11's bounds, and how many
// tokens a drafter may propose for one target pass.
type Options struct {
	unit11.Options

	// Draft is γ, the most tokens drafted for one target pass (llama.cpp's
	// --draft-max). It must be at least 1 and at most the Speculator's
	// maxDraft.
	Draft int

	// MinDraft (llama.cpp's --draft-min): a proposal of fewer tokens than
	// this is not verified; the target then takes a plain decode step.
	MinDraft int
}

// Result is a speculative generation's output, unit11's Result, with the
// counts that measure how well the drafter did.
type Result struct {
	unit11.Result

	Passes   int // target passes after the prompt's prefill, each yielding ≥ 1 token
	Drafted  int // tokens proposed and sent to the target
	Accepted int // drafted tokens the rule accepted
	Rejected int // drafted tokens the rule rejected (at most one per pass)
}

// AcceptanceRate is the share of the drafted tokens the rule judged that
// it accepted: an estimate of α, the expected acceptance of one token.
// Tokens proposed after a rejection were never judged and do not count.
// It is 0 when no token was judged.
func (r Result) AcceptanceRate() float64 {
	if r.Accepted+r.Rejected == 0 {
		return 0
	}
	return float64(r.Accepted) / float64(r.Accepted+r.Rejected)
}

// TokensPerPass is how many tokens a target pass yielded on average: 1
// for plain decoding, up to γ+1 with a drafter that is always right. It
// is 0 when there was no pass.
func (r Result) TokensPerPass() float64 {
	if r.Passes == 0 {
		return 0
	}
	return float64(len(r.Tokens)) / float64(r.Passes)
}
