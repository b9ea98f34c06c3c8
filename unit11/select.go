package unit11

// TopK returns the k best tokens of logits (highest logit first, equal
// logits lower id first), leaving out −Inf logits, in dst's storage if its
// capacity is at least k. It looks at each logit once and keeps the k best
// so far in a heap, O(n log k), without sorting the vocabulary.
func TopK(dst []Candidate, logits []float32, k int) []Candidate {
	panic("TODO(11.2): write TopK, see docs/unit11.md")
}

// Nucleus returns the top-p nucleus of logits: the fewest best tokens
// (best as in TopK) whose probabilities sum to at least p, the token that
// crosses p included; at least one token. probs holds the softmax of the
// logits at temperature 1 (unit02.SoftmaxRow computes it fast); a token
// whose probability is 0 (a −Inf logit, or one that underflows) is never
// in it. The nucleus comes in no particular order (Candidate.P is the
// token's probability). No logit may be NaN. It uses dst's storage if its
// capacity is at least len(logits).
//
// It does not sort the vocabulary. One pass adds each token's probability
// to a histogram of logit bands below the best logit; walking the bands
// from the top finds the band where the mass crosses p. A second pass
// collects the tokens of the bands above it (all in the nucleus) and of
// that band, and the search goes on inside the band alone, with finer
// bands, until a handful of tokens is left to sort.
func Nucleus(dst []Candidate, logits, probs []float32, p float64) []Candidate {
	panic("TODO(11.2): write Nucleus, see docs/unit11.md")
}
