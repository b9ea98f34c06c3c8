package oracle

import (
	"math"
	"testing"
)

func TestSamplingDist(t *testing.T) {
	ln := func(ps ...float64) []float32 { // logits whose softmax is ps
		l := make([]float32, len(ps))
		for i, p := range ps {
			l[i] = float32(math.Log(p))
		}
		return l
	}
	plain := SamplingParams{Temperature: 1, TopP: 1, RepeatPenalty: 1, PenaltyLastN: 64}
	with := func(edit func(*SamplingParams)) SamplingParams {
		p := plain
		edit(&p)
		return p
	}
	cases := []struct {
		name    string
		logits  []float32
		history []int
		p       SamplingParams
		want    []float64
	}{
		{"softmax", ln(0.5, 0.3, 0.2), nil, plain, []float64{0.5, 0.3, 0.2}},
		{"temperature 0.5 squares", ln(0.5, 0.3, 0.2), nil, with(func(p *SamplingParams) { p.Temperature = 0.5 }), []float64{25.0 / 38, 9.0 / 38, 4.0 / 38}},
		{"greedy, lower id on a tie", []float32{1, 3, 3, 2}, nil, with(func(p *SamplingParams) { p.Temperature = 0 }), []float64{0, 1, 0, 0}},
		{"top-k 2", ln(0.5, 0.3, 0.2), nil, with(func(p *SamplingParams) { p.TopK = 2 }), []float64{0.625, 0.375, 0}},
		{"top-p keeps the crossing token", ln(0.5, 0.3, 0.2), nil, with(func(p *SamplingParams) { p.TopP = 0.6 }), []float64{0.625, 0.375, 0}},
		{"top-p reached exactly", ln(0.5, 0.25, 0.25), nil, with(func(p *SamplingParams) { p.TopP = 0.5 }), []float64{1, 0, 0}},
		{"min-p 0.45", ln(0.4, 0.3, 0.2, 0.1), nil, with(func(p *SamplingParams) { p.MinP = 0.45 }), []float64{4.0 / 9, 3.0 / 9, 2.0 / 9, 0}},
		{"masked token", []float32{0, float32(math.Inf(-1)), 0}, nil, plain, []float64{0.5, 0, 0.5}},
		// Repeat penalty 2: logit 2 → 1, logit −1 → −2; token 2 unseen.
		{"repeat penalty", []float32{2, -1, 0.5}, []int{0, 1, 1}, with(func(p *SamplingParams) { p.RepeatPenalty = 2 }), softmaxOf(1, -2, 0.5)},
		// Frequency 1 × 2 occurrences + presence 0.5: logit 3 → 0.5.
		{"frequency and presence", []float32{3, 1}, []int{0, 0}, with(func(p *SamplingParams) { p.FrequencyPenalty = 1; p.PresencePenalty = 0.5 }),
			[]float64{math.Exp(0.5) / (math.Exp(0.5) + math.E), math.E / (math.Exp(0.5) + math.E)}},
		// Only the last 1 token is seen: token 0 is not penalised.
		{"penalty window", []float32{1, 1}, []int{0, 1}, with(func(p *SamplingParams) { p.PresencePenalty = 100; p.PenaltyLastN = 1; p.Temperature = 0 }), []float64{1, 0}},
	}
	for _, c := range cases {
		got := SamplingDist(c.logits, c.history, c.p)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-6 {
				t.Errorf("%s: SamplingDist = %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

func softmaxOf(l ...float64) []float64 {
	out, sum := make([]float64, len(l)), 0.0
	for i, v := range l {
		out[i] = math.Exp(v)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

func TestChiSquared(t *testing.T) {
	probs := []float64{0.5, 0.25, 0.25, 0}
	if stat, df, pass, bad := ChiSquared([]int{500, 250, 250, 0}, probs, 1e-3); stat != 0 || df != 2 || !pass || bad != -1 {
		t.Errorf("exact counts: stat %v, df %d, pass %v, impossible %d; want 0, 2, true, -1", stat, df, pass, bad)
	}
	if _, _, pass, _ := ChiSquared([]int{400, 300, 300, 0}, probs, 1e-3); pass {
		t.Errorf("counts 400/300/300 for probabilities 0.5/0.25/0.25 pass; χ² = 20 with 2 degrees of freedom must fail at 0.001")
	}
	if _, _, pass, bad := ChiSquared([]int{500, 250, 249, 1}, probs, 1e-3); pass || bad != 3 {
		t.Errorf("a draw of a token of probability 0: pass %v, impossible %d; want false, 3", pass, bad)
	}
}
