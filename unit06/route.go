package unit06

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
	panic("TODO(6.1): write Route, see docs/unit06.md")
}
