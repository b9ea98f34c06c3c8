package unit06

import (
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit02"
)

// Route chooses a token's experts. logits holds the router's logit of
// every expert and is overwritten with their softmax probabilities;
// choices (its length is k, 1 to len(logits)) gets the k most probable
// experts, most probable first, a tie going to the lower expert. Each
// weight is the expert's probability, divided by the sum of the k when
// renormalize is set. (For finite logits that sum is at least
// 1/len(logits), so unlike llama.cpp, which clamps it for gating functions
// other than softmax, Route needs no guard against dividing by 0.) A NaN
// logit makes every weight NaN and the choice the first k experts: the
// NaN reaches the output, an index out of range never does. It panics
// (unit00.Check) when k is out of range.
func Route(choices []Choice, logits []float32, renormalize bool) {
	k := len(choices)
	unit00.Check(k >= 1 && k <= len(logits), "Route: want 1 ≤ len(choices) ≤ len(logits)")
	unit02.SoftmaxRow(logits, logits, 1, nil)
	// Insertion into the sorted list of the best so far: k is small (2 to
	// 8), so this beats sorting all the experts, and it allocates nothing.
	// A strict comparison keeps the earlier (lower) expert ahead of a tie.
	filled := 0
	for e, p := range logits {
		i := filled
		for i > 0 && choices[i-1].Weight < p {
			i--
		}
		if i == k {
			continue
		}
		filled = min(filled+1, k)
		copy(choices[i+1:filled], choices[i:filled-1])
		choices[i] = Choice{Expert: e, Weight: p}
	}
	if !renormalize {
		return
	}
	sum := 0.0 // in float64, as llama.cpp sums rows
	for _, c := range choices {
		sum += float64(c.Weight)
	}
	for i := range choices {
		choices[i].Weight /= float32(sum)
	}
}
