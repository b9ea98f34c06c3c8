package unit11

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// ranked returns the ids of the finite logits, best first (equal logits:
// lower id first): the full sort TopK and Nucleus must agree with.
func ranked(logits []float32) []int {
	var ids []int
	for i, v := range logits {
		if !math.IsInf(float64(v), -1) {
			ids = append(ids, i)
		}
	}
	sort.SliceStable(ids, func(a, b int) bool { return logits[ids[a]] > logits[ids[b]] })
	return ids
}

// sameIDs says how c differs from the ids want (in order), or "".
func sameIDs(c []Candidate, want []int, logits []float32) string {
	if len(c) != len(want) {
		return fmt.Sprintf("%d candidates, want %d", len(c), len(want))
	}
	for i, x := range c {
		if x.ID != want[i] || math.Float32bits(x.Logit) != math.Float32bits(logits[want[i]]) {
			return fmt.Sprintf("candidate %d is token %d (logit %v), want token %d (logit %v)", i, x.ID, x.Logit, want[i], logits[want[i]])
		}
	}
	return ""
}

func TestC11_2_TopK(t *testing.T) {
	for _, n := range []int{1, 7, 300, 32000} {
		for lname, logits := range logitSets(n) {
			all := ranked(logits)
			for _, k := range []int{0, 1, 2, 5, 40, n - 1, n, n + 3} {
				if k < 0 {
					continue
				}
				dst := make([]Candidate, 3, 64) // stale contents and a small capacity must not matter
				got := TopK(dst, logits, k)
				if msg := sameIDs(got, all[:min(k, len(all))], logits); msg != "" {
					t.Fatalf("TopK(k=%d) of %d %s logits: %s", k, n, lname, msg)
				}
			}
		}
	}
}

// softmax32 is the softmax of logits at temperature 1, computed in float64
// and rounded to float32: the probs Nucleus takes.
func softmax32(logits []float32) []float32 {
	top := math.Inf(-1)
	for _, v := range logits {
		top = max(top, float64(v))
	}
	w, sum := make([]float64, len(logits)), 0.0
	for i, v := range logits {
		w[i] = math.Exp(float64(v) - top)
		sum += w[i]
	}
	probs := make([]float32, len(logits))
	for i := range w {
		probs[i] = float32(w[i] / sum)
	}
	return probs
}

// nucleusSize returns how many of the ranked ids the nucleus of mass p
// holds, summing probs in float64, and whether p lies within 1e-5 of a
// boundary: float32 probabilities summed in another order may land on
// either side of it.
func nucleusSize(probs []float32, ids []int, p float64) (int, bool) {
	cum := 0.0
	for i, id := range ids {
		before := cum
		cum += float64(probs[id])
		if probs[id] == 0 {
			return i, true // underflowed tokens: not in any nucleus
		}
		if cum >= p {
			edge := math.Abs(cum-p) < 1e-5 || math.Abs(before-p) < 1e-5
			return i + 1, edge
		}
	}
	return len(ids), true
}

// sortedCopy returns c sorted best first, for comparison with a ranking.
func sortedCopy(c []Candidate) []Candidate {
	c = append([]Candidate(nil), c...)
	sort.Slice(c, func(a, b int) bool {
		return c[a].Logit > c[b].Logit || c[a].Logit == c[b].Logit && c[a].ID < c[b].ID
	})
	return c
}

func TestC11_2_Nucleus(t *testing.T) {
	for _, n := range []int{1, 7, 300, 32000} {
		for lname, logits := range logitSets(n) {
			all, probs := ranked(logits), softmax32(logits)
			for _, p := range []float64{0, 0.05, 0.3, 0.5, 0.9, 0.95, 0.999, 1} {
				want, edge := nucleusSize(probs, all, p)
				if edge {
					continue // p sits on a boundary: either size is right
				}
				got := Nucleus(make([]Candidate, 5, 16), logits, probs, p)
				for _, x := range got {
					if x.P != float64(probs[x.ID]) {
						t.Fatalf("Nucleus(p=%v) of %d %s logits: token %d has P %v, want its probability %v", p, n, lname, x.ID, x.P, probs[x.ID])
					}
				}
				if msg := sameIDs(sortedCopy(got), all[:want], logits); msg != "" {
					t.Fatalf("Nucleus(p=%v) of %d %s logits: %s (the fewest best tokens whose probabilities sum to at least p: %d)", p, n, lname, msg, want)
				}
			}
		}
	}
}

// TestC11_2_NucleusExactMass: probabilities that are powers of two sum
// exactly, so the nucleus can end exactly on p: the token whose mass makes
// the sum reach p (not exceed it) is the last one in. Once across bands of
// logits, once inside a band (two equal logits).
func TestC11_2_NucleusExactMass(t *testing.T) {
	for _, tc := range []struct {
		probs []float32
		want  []int
	}{
		{[]float32{0.5, 0.25, 0.125, 0.125}, []int{0, 1}},
		{[]float32{0.5, 0.25, 0.25}, []int{0, 1}},
	} {
		logits := make([]float32, len(tc.probs))
		for i, q := range tc.probs {
			logits[i] = float32(math.Log(float64(q) / 0.5))
		}
		got := Nucleus(make([]Candidate, 0, len(logits)), logits, tc.probs, 0.75)
		ids := make([]int, len(got))
		for i, x := range got {
			ids[i] = x.ID
		}
		slices.Sort(ids)
		if !slices.Equal(ids, tc.want) {
			t.Errorf("Nucleus(p=0.75) of probabilities %v: tokens %v, want %v: 0.5 + 0.25 reaches 0.75 exactly, and reaching p is enough", tc.probs, ids, tc.want)
		}
	}
}

// TestC11_2_Adversarial: logits sorted ascending or descending (a naive
// pivot's worst case), one giant among equals, and a vocabulary of
// 128,256 (Llama 3's) where the nucleus holds most tokens.
func TestC11_2_Adversarial(t *testing.T) {
	const n = 128256
	up, down := make([]float32, n), make([]float32, n)
	for i := range up {
		up[i] = float32(i) * 1e-4
		down[i] = -up[i]
	}
	giant := make([]float32, n)
	giant[n/2] = 50
	flat := oracle.NewRand(116).Normal(n, 0, 0.01)
	for name, logits := range map[string][]float32{"ascending": up, "descending": down, "giant": giant, "flat": flat} {
		all, probs := ranked(logits), softmax32(logits)
		for _, p := range []float64{0.5, 0.95} {
			want, edge := nucleusSize(probs, all, p)
			if edge {
				continue
			}
			if msg := sameIDs(sortedCopy(Nucleus(nil, logits, probs, p)), all[:want], logits); msg != "" {
				t.Fatalf("Nucleus(p=%v) of %d %s logits: %s", p, n, name, msg)
			}
		}
		if msg := sameIDs(TopK(nil, logits, 40), all[:40], logits); msg != "" {
			t.Fatalf("TopK(40) of %d %s logits: %s", n, name, msg)
		}
	}
}

func TestC11_2_NoAllocs(t *testing.T) {
	if oracle.RaceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	logits := oracle.NewRand(117).Normal(32000, 0, 3)
	dst := make([]Candidate, 0, len(logits))
	if a := oracle.AllocsPerRun(10, func() { TopK(dst, logits, 40) }); a != 0 {
		t.Errorf("TopK with a dst of capacity k allocates %v times per call; work in dst's storage", a)
	}
	probs := softmax32(logits)
	if a := oracle.AllocsPerRun(10, func() { Nucleus(dst, logits, probs, 0.95) }); a != 0 {
		t.Errorf("Nucleus with a dst of capacity len(logits) allocates %v times per call; work in dst's storage", a)
	}
}

// TestC11_2_NucleusShortSum: float32 probabilities may sum to a little
// under 1 (25 × float32(1/25) = 0.99999998), so a nucleus of p close to 1
// can find its mass short of p after every band. Then every token with a
// probability is in, and Nucleus must not look for the crossing token in
// a band that holds none.
func TestC11_2_NucleusShortSum(t *testing.T) {
	g := oracle.NewRand(118)
	cases := map[string][]float32{
		"25 equal logits":           make([]float32, 25),
		"25 close logits":           g.Normal(25, 0, 0.01),
		"300 logits in one band":    g.Normal(300, 0, 0.005), // many tokens: the search goes on inside the band
		"40 logits over 15 nats":    g.Normal(40, 0, 5),
		"one token":                 {3},
		"two tokens, one very low":  {0, -90},
		"equal logits and a masked": {0, 0, 0, float32(math.Inf(-1)), 0, 0, 0},
	}
	for name, logits := range cases {
		probs := softmax32(logits)
		sum, live := 0.0, 0
		for _, q := range probs {
			sum += float64(q)
			if q > 0 {
				live++
			}
		}
		// Scaled down by a rounding's worth where they happen to sum to 1 or
		// more: the sum must fall short of every p below.
		if sum >= 1-1e-9 {
			for i := range probs {
				probs[i] *= 1 - 1e-6
			}
		}
		for _, p := range []float64{1, 1 - 1e-9} {
			var got []Candidate
			if v, panicked := oracle.Panics(func() { got = Nucleus(nil, logits, probs, p) }); panicked {
				t.Fatalf("Nucleus(p=%v) of %s, whose probabilities sum to less than p, panicked: %v; when the mass never reaches p, every token with a probability is in", p, name, v)
			}
			if msg := sameIDs(sortedCopy(got), ranked(logits)[:live], logits); msg != "" {
				t.Fatalf("Nucleus(p=%v) of %s, whose probabilities sum to less than p: %s; when the mass never reaches p, every token with a probability is in", p, name, msg)
			}
		}
	}
	// The sampler reaches it with a top-p just below 1.
	p := Params{Temperature: 1, TopP: 1 - 1e-9, RepeatPenalty: 1}
	s, err := NewSampler(25, p)
	if err != nil {
		t.Fatal(err)
	}
	var c []Candidate
	if v, panicked := oracle.Panics(func() { c, err = s.Candidates(make([]float32, 25), nil) }); panicked || err != nil || len(c) != 25 {
		t.Fatalf("Candidates of 25 equal logits at top-p %v: %d candidates, error %v, panic %v; want all 25", p.TopP, len(c), err, v)
	}
}

// TestC11_2_AllMasked: with every logit −Inf there is nothing to keep.
func TestC11_2_AllMasked(t *testing.T) {
	for _, n := range []int{1, 5, 300} {
		logits := make([]float32, n)
		for i := range logits {
			logits[i] = float32(math.Inf(-1))
		}
		if got := TopK(make([]Candidate, 2, 8), logits, 3); len(got) != 0 {
			t.Errorf("TopK(k=3) of %d masked (−Inf) logits = %v; want no candidates", n, got)
		}
		var got []Candidate
		if v, panicked := oracle.Panics(func() { got = Nucleus(make([]Candidate, 2, 8), logits, make([]float32, n), 0.9) }); panicked || len(got) != 0 {
			t.Errorf("Nucleus of %d masked (−Inf) logits (probabilities all 0): %v, panic %v; want no candidates and no panic", n, got, v)
		}
	}
}

// TestC11_2_TopKInfinities: only −Inf (a masked token) is left out. +Inf
// and ±MaxFloat32 are logits like any other: +Inf ranks first (two of
// them: the lower id first), −MaxFloat32 last among the kept.
func TestC11_2_TopKInfinities(t *testing.T) {
	inf := float32(math.Inf(1))
	logits := []float32{-inf, math.MaxFloat32, inf, -math.MaxFloat32, 0, inf, -inf}
	want := []int{2, 5, 1, 4, 3} // by hand: +Inf (2, 5), MaxFloat32, 0, −MaxFloat32
	for _, k := range []int{1, 2, 3, 5, 7} {
		if msg := sameIDs(TopK(make([]Candidate, 0, 8), logits, k), want[:min(k, len(want))], logits); msg != "" {
			t.Errorf("TopK(k=%d) of %v: %s; leave out −Inf alone: +Inf is the best logit there is, not a masked token", k, logits, msg)
		}
	}
}

// TestC11_2_RandomSmall: thousands of small random vocabularies (1 to 40
// tokens, logits drawn from a few integers so ties abound, some masked),
// every k and several p, against the full sort. A heap that is slightly
// wrong (a parent off by one, a child skipped) passes the big smooth
// vocabularies above and fails here.
func TestC11_2_RandomSmall(t *testing.T) {
	g := oracle.NewRand(119)
	for trial := range 2000 {
		n := 1 + g.Intn(40)
		logits := make([]float32, n)
		for i := range logits {
			logits[i] = float32(g.Intn(12))
			if g.Intn(10) == 0 {
				logits[i] = float32(math.Inf(-1))
			}
		}
		all := ranked(logits)
		for k := 1; k <= n+1; k++ {
			if msg := sameIDs(TopK(nil, logits, k), all[:min(k, len(all))], logits); msg != "" {
				t.Fatalf("trial %d: TopK(k=%d) of the %d logits %v: %s", trial, k, n, logits, msg)
			}
		}
		probs := softmax32(logits)
		for _, p := range []float64{0.1, 0.5, 0.8, 0.97} {
			want, edge := nucleusSize(probs, all, p)
			if edge || len(all) == 0 {
				continue
			}
			if msg := sameIDs(sortedCopy(Nucleus(nil, logits, probs, p)), all[:want], logits); msg != "" {
				t.Fatalf("trial %d: Nucleus(p=%v) of the %d logits %v: %s", trial, p, n, logits, msg)
			}
		}
	}
}
