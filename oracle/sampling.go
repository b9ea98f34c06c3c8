package oracle

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// SamplingParams are the sampler settings the oracle understands: the same
// fields as unit11.Params, repeated here so the oracle imports no unit.
type SamplingParams struct {
	Temperature      float64 // ≤ 0: greedy
	TopK             int     // ≤ 0: off
	TopP             float64 // ≥ 1: off
	MinP             float64 // ≤ 0: off
	RepeatPenalty    float64 // 1 (or 0): off
	FrequencyPenalty float64
	PresencePenalty  float64
	PenaltyLastN     int // the penalties see the last PenaltyLastN tokens of the history; -1 all
}

// SamplingDist is the exact distribution of the next token under
// llama.cpp's default sampler chain, computed the slow, obvious way in
// float64: a probability for every token of the vocabulary, zero for the
// ones the chain removed. The chain, in order:
//
//  1. penalties, on the distinct tokens of the last PenaltyLastN of
//     history: a positive logit divided by RepeatPenalty, a negative (or
//     zero) one multiplied by it, then count·FrequencyPenalty +
//     PresencePenalty subtracted;
//  2. the whole vocabulary sorted by logit, highest first (equal logits:
//     lower id first), tokens with a −Inf logit dropped;
//  3. greedy (Temperature ≤ 0): the first token, probability 1;
//  4. top-k: the first TopK;
//  5. top-p: the shortest prefix whose softmax (over what is left, at
//     temperature 1) sums to at least TopP;
//  6. min-p: those with a logit of at least the highest + ln(MinP), that
//     is a probability of at least MinP times the highest's;
//  7. the softmax of what is left at Temperature.
func SamplingDist(logits []float32, history []int, p SamplingParams) []float64 {
	n := len(logits)
	l := make([]float64, n)
	for i, v := range logits {
		l[i] = float64(v)
	}
	window := history
	if p.PenaltyLastN >= 0 && len(window) > p.PenaltyLastN {
		window = window[len(window)-p.PenaltyLastN:]
	}
	counts := map[int]int{}
	for _, t := range window {
		counts[t]++
	}
	for t, c := range counts {
		if p.RepeatPenalty != 0 && p.RepeatPenalty != 1 {
			if l[t] <= 0 {
				l[t] *= p.RepeatPenalty
			} else {
				l[t] /= p.RepeatPenalty
			}
		}
		l[t] -= float64(c)*p.FrequencyPenalty + p.PresencePenalty
	}

	var ids []int
	for i := range l {
		if !math.IsInf(l[i], -1) {
			ids = append(ids, i)
		}
	}
	sort.SliceStable(ids, func(a, b int) bool { return l[ids[a]] > l[ids[b]] })
	dist := make([]float64, n)
	if len(ids) == 0 {
		return dist
	}
	if p.Temperature <= 0 {
		dist[ids[0]] = 1
		return dist
	}
	if p.TopK > 0 && p.TopK < len(ids) {
		ids = ids[:p.TopK]
	}
	if p.TopP < 1 {
		probs := softmax64(l, ids, 1)
		cum, keep := 0.0, len(ids)
		for i, q := range probs {
			cum += q
			if cum >= p.TopP {
				keep = i + 1
				break
			}
		}
		ids = ids[:keep]
	}
	if p.MinP > 0 {
		floor := l[ids[0]] + math.Log(p.MinP)
		keep := 1
		for keep < len(ids) && l[ids[keep]] >= floor {
			keep++
		}
		ids = ids[:keep]
	}
	for i, q := range softmax64(l, ids, p.Temperature) {
		dist[ids[i]] = q
	}
	return dist
}

// softmax64 is the softmax of l/temp over ids (ids[0] the largest).
func softmax64(l []float64, ids []int, temp float64) []float64 {
	out := make([]float64, len(ids))
	sum := 0.0
	for i, id := range ids {
		out[i] = math.Exp((l[id] - l[ids[0]]) / temp)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// ChiSquared is Pearson's goodness-of-fit test of observed counts against
// the expected probabilities probs (summing to 1) of the same categories.
// Categories expected fewer than 5 times are pooled into one, as the test
// needs; a category of probability 0 must never be observed (it returns
// pass false and names it). It returns the statistic, the degrees of
// freedom, and whether the statistic lies below the critical value at
// significance alpha.
func ChiSquared(counts []int, probs []float64, alpha float64) (stat float64, df int, pass bool, impossible int) {
	total := 0
	for _, c := range counts {
		total += c
	}
	n := float64(total)
	var poolObs, poolExp float64
	bins := 0
	for i, q := range probs {
		switch e := q * n; {
		case q == 0 && counts[i] > 0:
			return math.Inf(1), 0, false, i
		case e < 5:
			poolObs += float64(counts[i])
			poolExp += e
		default:
			d := float64(counts[i]) - e
			stat += d * d / e
			bins++
		}
	}
	if poolExp > 0 {
		d := poolObs - poolExp
		stat += d * d / poolExp
		bins++
	}
	df = bins - 1
	if df < 1 {
		return stat, df, true, -1
	}
	return stat, df, stat <= distuv.ChiSquared{K: float64(df)}.Quantile(1-alpha), -1
}
