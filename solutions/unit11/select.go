package unit11

import (
	"math"
	"slices"

	"github.com/llmforge/forge/unit02"
)

// better reports whether a ranks before b: a higher logit, or an equal
// logit and a lower id. It is the order every candidate list is sorted in.
func better(a, b Candidate) bool {
	return a.Logit > b.Logit || a.Logit == b.Logit && a.ID < b.ID
}

// sortCandidates sorts c best first.
func sortCandidates(c []Candidate) {
	slices.SortFunc(c, func(a, b Candidate) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
}

// TopK returns the k best tokens of logits (highest logit first, equal
// logits lower id first), leaving out −Inf logits, in dst's storage if its
// capacity is at least k. It looks at each logit once and keeps the k best
// so far in a heap, O(n log k), without sorting the vocabulary.
func TopK(dst []Candidate, logits []float32, k int) []Candidate {
	if k <= 0 {
		return dst[:0]
	}
	// h is a min-heap under better: h[0] is the worst of the k kept, the
	// one a newcomer must beat.
	h := dst[:0]
	for i, v := range logits {
		if math.IsInf(float64(v), -1) {
			continue
		}
		c := Candidate{ID: i, Logit: v}
		switch {
		case len(h) < k:
			h = append(h, c)
			siftUp(h, len(h)-1)
		case better(c, h[0]):
			h[0] = c
			siftDown(h, 0)
		}
	}
	sortCandidates(h)
	return h
}

// siftUp restores the heap after h[i] was added.
func siftUp(h []Candidate, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !better(h[parent], h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

// siftDown restores the heap after h[i] was replaced.
func siftDown(h []Candidate, i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && better(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
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
	c := dst[:0]
	top := unit02.Max(logits)
	if math.IsInf(float64(top), -1) {
		return c
	}
	// need is the mass still missing; at p = 0, the best token's share
	// (any mass > 0) is enough.
	need := max(p, math.SmallestNonzeroFloat64)
	// The first bands are 20 nats deep below the best logit: everything
	// further down (each token under e⁻²⁰ of the best's probability)
	// shares the last band.
	b := bands{top: top, scale: nBands / 20}
	for i, q := range probs {
		if q > 0 {
			b.add(logits[i], float64(q))
		}
	}
	cross, before := b.crossing(need)
	c = collect(dst, logits, probs, &b, cross)
	// c holds the bands above the crossing one and that band's tokens:
	// move the first to the front, and search among the others.
	in := partitionBands(c, &b, cross)
	return c[:in+within(c[in:], need-before)]
}

// collect returns the tokens of logits whose probability is positive and
// whose band is cross or above, in dst's storage (capacity at least
// len(logits)). It writes every token to the next free slot and moves on
// only past the ones it keeps: which tokens those are is close to a coin
// toss, so a branch on it would be mispredicted half the time, and on a
// vocabulary of 128k tokens that cost most of a sample.
func collect(dst []Candidate, logits, probs []float32, b *bands, cross int) []Candidate {
	if cap(dst) < len(logits) {
		dst = make([]Candidate, len(logits))
	}
	c := dst[:len(logits)]
	n := 0
	for i, q := range probs {
		l := logits[i]
		c[n] = Candidate{ID: i, Logit: l, P: float64(q)}
		inBand, positive := 0, 0
		if b.band(l) <= cross {
			inBand = 1
		}
		if q > 0 {
			positive = 1
		}
		n += inBand & positive
	}
	return c[:n]
}

// nBands is the histogram's resolution.
const nBands = 256

// bands is a histogram of probability mass over logit bands: band k holds
// the logits l with top − l in [k, k+1)/scale, the last band everything
// below.
type bands struct {
	top   float32
	scale float32
	mass  [nBands]float64
}

func (b *bands) band(l float32) int {
	return min(int((b.top-l)*b.scale), nBands-1)
}

func (b *bands) add(l float32, q float64) { b.mass[b.band(l)] += q }

// crossing returns the first band where the mass, summed from the top,
// reaches need, and the mass of the bands above it. If rounding keeps the
// sum short of need (float32 probabilities may sum to a little under 1), it
// is the last band that holds any mass: every token is in, and the caller
// must find tokens in the band it gets, so an empty last band will not do.
func (b *bands) crossing(need float64) (int, float64) {
	cum, last := 0.0, 0
	for k, m := range b.mass {
		if cum+m >= need {
			return k, cum
		}
		if m > 0 {
			last = k
		}
		cum += m
	}
	return last, cum - b.mass[last]
}

// within reorders c (one band's tokens) and returns how many of the best
// of them reach mass need: a few, or tokens whose logits are all equal,
// are sorted (by id, for equal logits); many are split into finer bands of
// their own logit range.
func within(c []Candidate, need float64) int {
	lo, hi := c[0].Logit, c[0].Logit
	for _, x := range c {
		lo, hi = min(lo, x.Logit), max(hi, x.Logit)
	}
	if len(c) <= 64 || lo == hi {
		sortCandidates(c)
		return prefixReaching(c, need)
	}
	b := bands{top: hi, scale: (nBands - 1) / (hi - lo)}
	for _, x := range c {
		b.add(x.Logit, x.P)
	}
	cross, before := b.crossing(need)
	in := partitionBands(c, &b, cross)
	rest := c[in:]
	n := 0 // the crossing band to the front of rest
	for i := range rest {
		if b.band(rest[i].Logit) == cross {
			rest[n], rest[i] = rest[i], rest[n]
			n++
		}
	}
	return in + within(rest[:n], need-before)
}

// partitionBands moves the candidates of the bands above cross to the
// front of c and returns how many there are.
func partitionBands(c []Candidate, b *bands, cross int) int {
	in := 0
	for i := range c {
		if b.band(c[i].Logit) < cross {
			c[in], c[i] = c[i], c[in]
			in++
		}
	}
	return in
}

// prefixReaching returns the length of the shortest prefix of c (sorted)
// whose mass reaches need: all of c if none does.
func prefixReaching(c []Candidate, need float64) int {
	cum := 0.0
	for i, x := range c {
		cum += x.P
		if cum >= need {
			return i + 1
		}
	}
	return len(c)
}
