package unit06

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// routeTol: a weight is a float32 softmax probability (a few ulps), divided
// by a float32 sum when renormalised.
var routeTol = oracle.Tol{Atol: 1e-7, Rtol: 1e-6}

func TestC6_1_RouteByHand(t *testing.T) {
	// Probabilities 1:3:2:6 out of 12.
	logits := []float32{0, float32(math.Log(3)), float32(math.Log(2)), float32(math.Log(6))}
	for _, tc := range []struct {
		k       int
		renorm  bool
		experts []int
		weights []float64
	}{
		{1, false, []int{3}, []float64{0.5}},
		{1, true, []int{3}, []float64{1}},
		{2, false, []int{3, 1}, []float64{0.5, 0.25}},
		{2, true, []int{3, 1}, []float64{2.0 / 3, 1.0 / 3}},
		{3, true, []int{3, 1, 2}, []float64{6.0 / 11, 3.0 / 11, 2.0 / 11}},
		{4, false, []int{3, 1, 2, 0}, []float64{0.5, 0.25, 2.0 / 12, 1.0 / 12}},
		{4, true, []int{3, 1, 2, 0}, []float64{0.5, 0.25, 2.0 / 12, 1.0 / 12}},
	} {
		what := fmt.Sprintf("Route of logits ln(1, 3, 2, 6), k %d, renormalize %v", tc.k, tc.renorm)
		probs := append([]float32(nil), logits...)
		choices := make([]Choice, tc.k)
		Route(choices, probs, tc.renorm)
		checkChoices(t, what, choices, tc.experts, tc.weights)
		oracle.AssertClose(t, what+": logits overwritten with the softmax probabilities", probs, []float64{1.0 / 12, 3.0 / 12, 2.0 / 12, 6.0 / 12}, routeTol)
	}
}

// checkChoices compares choices with the experts and weights wanted.
func checkChoices(t *testing.T, what string, choices []Choice, experts []int, weights []float64) {
	t.Helper()
	got := make([]int, len(choices))
	w := make([]float32, len(choices))
	for i, c := range choices {
		got[i], w[i] = c.Expert, c.Weight
	}
	if fmt.Sprint(got) != fmt.Sprint(experts) {
		t.Fatalf("%s: experts %v, want %v (most probable first, a tie to the lower expert)", what, got, experts)
	}
	oracle.AssertClose(t, what+": weights", w, weights, routeTol)
}

func TestC6_1_RouteTies(t *testing.T) {
	for _, tc := range []struct {
		logits  []float32
		k       int
		experts []int
	}{
		{[]float32{1, 3, 3, 0, 3}, 2, []int{1, 2}},
		{[]float32{1, 3, 3, 0, 3}, 3, []int{1, 2, 4}},
		{[]float32{1, 3, 3, 0, 3}, 5, []int{1, 2, 4, 0, 3}},
		{[]float32{2, 2, 2, 2, 2, 2, 2, 2}, 8, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{[]float32{2, 2, 2, 2, 2, 2, 2, 2}, 2, []int{0, 1}},
		{[]float32{0, 5, 0, 0, 5}, 3, []int{1, 4, 0}},
		// Below a tie: the tie is taken in order after the best.
		{[]float32{-1, 4, 1, 1, -1}, 3, []int{1, 2, 3}},
	} {
		choices := make([]Choice, tc.k)
		probs := append([]float32(nil), tc.logits...)
		experts, weights := oracle.MoERoute(oracle.Float64s(tc.logits), tc.k, false)
		if fmt.Sprint(experts) != fmt.Sprint(tc.experts) {
			t.Fatalf("the oracle chose %v for %v, the test expects %v", experts, tc.logits, tc.experts)
		}
		Route(choices, probs, false)
		checkChoices(t, fmt.Sprintf("Route of %v, k %d", tc.logits, tc.k), choices, tc.experts, weights)
	}
}

func TestC6_1_RouteOracle(t *testing.T) {
	g := oracle.NewRand(61)
	for _, tc := range []struct{ experts, k int }{
		{1, 1}, {2, 1}, {2, 2}, {8, 2}, {8, 1}, {8, 8}, {16, 4}, {17, 4}, {60, 4}, {64, 8}, {128, 8}, {MaxExperts, 8},
	} {
		for _, renorm := range []bool{false, true} {
			for trial := range 5 {
				// Distinct logits, 0.013 apart: a float32
				// softmax keeps their order.
				logits := make([]float32, tc.experts)
				for i, p := range perm(g, tc.experts) {
					logits[i] = float32(p)*0.013 - 2
				}
				experts, weights := oracle.MoERoute(oracle.Float64s(logits), tc.k, renorm)
				want := oracle.Softmax(oracle.Float64s(logits), 1, nil)
				choices := make([]Choice, tc.k)
				what := fmt.Sprintf("Route over %d experts, k %d, renormalize %v, trial %d", tc.experts, tc.k, renorm, trial)
				probs := append([]float32(nil), logits...)
				Route(choices, probs, renorm)
				checkChoices(t, what, choices, experts, weights)
				oracle.AssertClose(t, what+": probabilities", probs, want, routeTol)
			}
		}
	}
}

// TestC6_1_RouteNaN: a NaN logit (from NaN weights or activations) gives
// NaN weights, never a choice out of range.
func TestC6_1_RouteNaN(t *testing.T) {
	for _, renorm := range []bool{false, true} {
		logits := []float32{0.5, float32(math.NaN()), 2, -1, 1}
		choices := make([]Choice, 3)
		for i := range choices {
			choices[i] = Choice{Expert: -7, Weight: 9}
		}
		Route(choices, logits, renorm)
		for s, c := range choices {
			if c.Expert != s || !math.IsNaN(float64(c.Weight)) {
				t.Errorf("renormalize %v: a NaN logit gave slot %d expert %d weight %v, want expert %d weight NaN: NaN probabilities all tie, so the first k experts, and the NaN must reach the output", renorm, s, c.Expert, c.Weight, s)
			}
		}
	}
}

func TestC6_1_RouteArguments(t *testing.T) {
	logits := []float32{1, 2, 3}
	mustPanic(t, "Route with no choices (k = 0)", func() { Route(nil, logits, true) })
	mustPanic(t, "Route with 4 choices of 3 experts", func() { Route(make([]Choice, 4), logits, true) })
	mustPanic(t, "Route with 1 choice of no experts", func() { Route(make([]Choice, 1), nil, false) })
}
