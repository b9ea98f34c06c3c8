package unit12

import "github.com/llmforge/forge/unit11"

// Dense writes the probabilities of a sampler's candidates into dst, one
// per token id of the vocabulary, and 0 for every token not among them:
// the distribution the sampler would draw from, in a form where p[x] is
// one lookup. It returns dst. A candidate id outside dst panics.
func Dense(dst []float64, c []unit11.Candidate) []float64 {
	clear(dst)
	for _, cand := range c {
		dst[cand.ID] = cand.P
	}
	return dst
}

// Accept is the rule for a token x drawn from the draft's distribution q,
// judged by the target's p: accept it with probability min(1, p[x]/q[x]).
// u is a uniform draw from [0, 1) that decides: x is accepted when u <
// p[x]/q[x], written u·q[x] < p[x] so that no division is needed. A token
// the target finds at least as likely as the draft did is always accepted.
func Accept(p, q []float64, x int, u float64) bool {
	return u*q[x] < p[x]
}

// Residual sets dst to the distribution a rejected position is resampled
// from, max(0, p − q) normalized to sum to 1, and returns it. Where the
// target gives no token more than the draft did (p ≤ q everywhere, so p
// = q), no token can be rejected, and the residual is p itself. dst may
// not alias p or q.
func Residual(dst, p, q []float64) []float64 {
	sum := 0.0
	for i := range dst {
		dst[i] = max(0, p[i]-q[i])
		sum += dst[i]
	}
	if sum <= 0 {
		copy(dst, p)
		return dst
	}
	for i := range dst {
		dst[i] /= sum
	}
	return dst
}

// Draw returns the token a uniform draw u from [0, 1) picks from dist:
// the first i at which dist[0] + … + dist[i] exceeds u. When rounding
// leaves the sum just under u, it is the last token with a probability
// above 0; when there is none, −1.
func Draw(dist []float64, u float64) int {
	last := -1
	for i, pr := range dist {
		if pr <= 0 {
			continue
		}
		last = i
		if u -= pr; u < 0 {
			return i
		}
	}
	return last
}
