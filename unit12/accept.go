package unit12

import "github.com/llmforge/forge/unit11"

// Dense writes the probabilities of a sampler's candidates into dst, one
// per token id of the vocabulary, and 0 for every token not among them:
// the distribution the sampler would draw from, in a form where p[x] is
// one lookup. It returns dst. A candidate id outside dst panics.
func Dense(dst []float64, c []unit11.Candidate) []float64 {
	panic("TODO(12.2): write Dense, see docs/unit12.md")
}

// Accept is the rule for a token x drawn from the draft's distribution q,
// judged by the target's p: accept it with probability min(1, p[x]/q[x]).
// u is a uniform draw from [0, 1) that decides: x is accepted when u <
// p[x]/q[x], written u·q[x] < p[x] so that no division is needed. A token
// the target finds at least as likely as the draft did is always accepted.
func Accept(p, q []float64, x int, u float64) bool {
	panic("TODO(12.2): write Accept, see docs/unit12.md")
}

// Residual sets dst to the distribution a rejected position is resampled
// from, max(0, p − q) normalized to sum to 1, and returns it. Where the
// target gives no token more than the draft did (p ≤ q everywhere, so p
// = q), no token can be rejected, and the residual is p itself. dst may
// not alias p or q.
func Residual(dst, p, q []float64) []float64 {
	panic("TODO(12.2): write Residual, see docs/unit12.md")
}

// Draw returns the token a uniform draw u from [0, 1) picks from dist:
// the first i at which dist[0] + … + dist[i] exceeds u. When rounding
// leaves the sum just under u, it is the last token with a probability
// above 0; when there is none, −1.
func Draw(dist []float64, u float64) int {
	panic("TODO(12.2): write Draw, see docs/unit12.md")
}
