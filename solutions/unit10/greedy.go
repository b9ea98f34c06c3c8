package unit10

import (
	"github.com/llmforge/forge/unit07"
)

// Greedy runs the prompt through the session and then generates n tokens,
// each the highest-scoring one (the first, on a tie, as llama.cpp picks),
// feeding each back in. It returns the n tokens; a session error (a bad
// token, a full context) stops it and is returned with the tokens so far.
func Greedy(s *unit07.Session, prompt []int, n int) ([]int, error) {
	logits, err := s.Prefill(prompt)
	out := make([]int, 0, n)
	for err == nil && len(out) < n {
		best := 0
		for i, v := range logits {
			if v > logits[best] {
				best = i
			}
		}
		out = append(out, best)
		if len(out) < n {
			logits, err = s.Step(best)
		}
	}
	return out, err
}
