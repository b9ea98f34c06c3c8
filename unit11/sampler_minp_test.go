package unit11

import (
	"testing"

	"github.com/llmforge/forge/oracle"
)

// TestC11_1_MinPFloor: min-p's floor is best + ln(MinP) in float64, with
// top-k and top-p off as with them on. Each case's second logit is the
// float32 just above that floor (found by hand: float32(best + float32(ln
// MinP)) rounds above it), so it must stay a candidate.
func TestC11_1_MinPFloor(t *testing.T) {
	for _, c := range []struct {
		best, edge float32
		minP       float64
	}{
		{2.8203309, 0.80056685, 0.1326867735416135},
		{1.0858648, 0.07649004, 0.3644467706951241},
	} {
		logits := []float32{c.best, c.edge, c.edge - 1}
		for _, topK := range []int{0, 3} {
			p := Params{Temperature: 1, TopK: topK, TopP: 1, MinP: c.minP, RepeatPenalty: 1}
			s, err := NewSampler(len(logits), p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Candidates(logits, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkCandidates(t, "min-p at its floor", got, oracle.SamplingDist(logits, nil, toOracle(p)))
		}
	}
}
