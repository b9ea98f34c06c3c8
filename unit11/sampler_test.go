package unit11

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/stretchr/testify/require"
)

func TestC11_1_Params(t *testing.T) {
	want := Params{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1, PenaltyLastN: 64}
	if got := DefaultParams(); got != want {
		t.Fatalf("DefaultParams() = %+v, want llama.cpp's %+v", got, want)
	}
	if err := DefaultParams().Validate(); err != nil {
		t.Fatalf("DefaultParams().Validate() = %v", err)
	}
	nan := math.NaN()
	bad := []struct {
		field string
		edit  func(*Params)
	}{
		{"temperature", func(p *Params) { p.Temperature = nan }},
		{"temperature", func(p *Params) { p.Temperature = math.Inf(1) }},
		{"top-p", func(p *Params) { p.TopP = 1.5 }},
		{"top-p", func(p *Params) { p.TopP = -0.1 }},
		{"top-p", func(p *Params) { p.TopP = nan }},
		{"min-p", func(p *Params) { p.MinP = 2 }},
		{"min-p", func(p *Params) { p.MinP = -1 }},
		{"repeat-penalty", func(p *Params) { p.RepeatPenalty = 0 }},
		{"repeat-penalty", func(p *Params) { p.RepeatPenalty = -1.1 }},
		{"frequency-penalty", func(p *Params) { p.FrequencyPenalty = nan }},
		{"presence-penalty", func(p *Params) { p.PresencePenalty = math.Inf(-1) }},
		{"repeat-last-n", func(p *Params) { p.PenaltyLastN = -2 }},
		// Every field's NaN and infinities: a range test alone lets NaN
		// through (every comparison with NaN is false).
		{"temperature", func(p *Params) { p.Temperature = math.Inf(-1) }},
		{"top-p", func(p *Params) { p.TopP = math.Inf(1) }},
		{"min-p", func(p *Params) { p.MinP = nan }},
		{"repeat-penalty", func(p *Params) { p.RepeatPenalty = nan }},
		{"repeat-penalty", func(p *Params) { p.RepeatPenalty = math.Inf(1) }},
		{"frequency-penalty", func(p *Params) { p.FrequencyPenalty = math.Inf(1) }},
		{"presence-penalty", func(p *Params) { p.PresencePenalty = nan }},
	}
	for _, b := range bad {
		p := DefaultParams()
		b.edit(&p)
		err := p.Validate()
		if !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), b.field) {
			t.Errorf("Validate of %+v: %v; want an error wrapping unit00.ErrInvalid that names %s", p, err, b.field)
		}
		if s, err := NewSampler(10, p); s != nil || !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("NewSampler with a bad %s: %v, %v; want nil and the Validate error", b.field, s, err)
		}
	}
	for _, vocab := range []int{0, -1} {
		if _, err := NewSampler(vocab, DefaultParams()); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("NewSampler(%d, …): %v, want an error wrapping unit00.ErrInvalid", vocab, err)
		}
	}
	// The ends of every range are settings, not errors.
	good := []struct {
		name string
		edit func(*Params)
	}{
		{"top-p 0", func(p *Params) { p.TopP = 0 }},
		{"top-p 1", func(p *Params) { p.TopP = 1 }},
		{"min-p 0", func(p *Params) { p.MinP = 0 }},
		{"min-p 1", func(p *Params) { p.MinP = 1 }},
		{"temperature 0", func(p *Params) { p.Temperature = 0 }},
		{"temperature −1", func(p *Params) { p.Temperature = -1 }},
		{"repeat-penalty 0.001", func(p *Params) { p.RepeatPenalty = 0.001 }},
		{"repeat-last-n −1", func(p *Params) { p.PenaltyLastN = -1 }},
		{"repeat-last-n 0", func(p *Params) { p.PenaltyLastN = 0 }},
		{"negative penalties", func(p *Params) { p.FrequencyPenalty, p.PresencePenalty = -1, -2 }},
	}
	for _, g := range good {
		p := DefaultParams()
		g.edit(&p)
		require.NoError(t, p.Validate(), "Validate with %s: the value is allowed", g.name)
		_, err := NewSampler(10, p)
		require.NoError(t, err, "NewSampler with %s", g.name)
	}
	// A vocabulary of one token is a vocabulary.
	s, err := NewSampler(1, DefaultParams())
	require.NoError(t, err, "NewSampler(1, …): one token is a vocabulary")
	c, err := s.Candidates([]float32{-3}, []int{0, 0})
	require.NoError(t, err, "Candidates of a one-token vocabulary")
	if len(c) != 1 || c[0].ID != 0 || c[0].P != 1 {
		t.Errorf("Candidates of a one-token vocabulary = %+v; want token 0 with probability 1", c)
	}
}

// chainConfigs exercise each stage of the chain alone, then together.
func chainConfigs() map[string]Params {
	plain := Params{Temperature: 1, RepeatPenalty: 1, TopP: 1, PenaltyLastN: 64}
	with := func(edit func(*Params)) Params {
		p := plain
		edit(&p)
		return p
	}
	def := DefaultParams()
	return map[string]Params{
		"greedy":           with(func(p *Params) { p.Temperature = 0 }),
		"greedy-penalized": with(func(p *Params) { p.Temperature = 0; p.RepeatPenalty = 1.5; p.PresencePenalty = 2 }),
		"temperature-1":    plain,
		"temperature-0.5":  with(func(p *Params) { p.Temperature = 0.5 }),
		"temperature-2":    with(func(p *Params) { p.Temperature = 2 }),
		"top-k-5":          with(func(p *Params) { p.TopK = 5 }),
		"top-k-1":          with(func(p *Params) { p.TopK = 1 }),
		"top-p-0.8":        with(func(p *Params) { p.TopP = 0.8 }),
		"top-p-0.3-hot":    with(func(p *Params) { p.TopP = 0.3; p.Temperature = 3 }),
		"top-p-0":          with(func(p *Params) { p.TopP = 0 }),
		"min-p-0.1":        with(func(p *Params) { p.MinP = 0.1 }),
		"min-p-0.5-cold":   with(func(p *Params) { p.MinP = 0.5; p.Temperature = 0.3 }),
		"repeat-1.5":       with(func(p *Params) { p.RepeatPenalty = 1.5; p.PenaltyLastN = 16 }),
		"repeat-2":         with(func(p *Params) { p.RepeatPenalty = 2 }),
		"frequency":        with(func(p *Params) { p.FrequencyPenalty = 0.7; p.PenaltyLastN = -1 }),
		// A negative penalty rewards repeats; with the other two off it is
		// still a penalty to apply, not a sign that penalties are off.
		"frequency-negative": with(func(p *Params) { p.FrequencyPenalty = -1; p.PenaltyLastN = -1 }),
		"presence":           with(func(p *Params) { p.PresencePenalty = 1.5 }),
		"presence-negative":  with(func(p *Params) { p.PresencePenalty = -1 }),
		"penalties-no-look":  with(func(p *Params) { p.RepeatPenalty = 3; p.PresencePenalty = 5; p.PenaltyLastN = 0 }),
		"defaults":           def,
		"defaults-penalized": func() Params {
			p := def
			p.RepeatPenalty, p.FrequencyPenalty, p.PresencePenalty = 1.2, 0.3, 0.4
			return p
		}(),
		"top-k-then-top-p": with(func(p *Params) { p.TopK = 20; p.TopP = 0.6 }),
		"top-p-then-min-p": with(func(p *Params) { p.TopP = 0.9; p.MinP = 0.2 }),
	}
}

// edgeConfigs are the ends of the ranges that chainConfigs does not reach,
// for TestC11_1_Candidates alone (the boss's chi-squared test runs
// chainConfigs, each at its own small risk of a false alarm).
func edgeConfigs() map[string]Params {
	plain := Params{Temperature: 1, RepeatPenalty: 1, TopP: 1, PenaltyLastN: 64}
	with := func(edit func(*Params)) Params {
		p := plain
		edit(&p)
		return p
	}
	return map[string]Params{
		// Min-p 1 keeps the tokens whose logit equals the best's (a tie
		// keeps them all): the floor is the best logit itself, and reaching
		// it is enough.
		"min-p-1": with(func(p *Params) { p.MinP = 1 }),
		// A penalty of exactly 1 is on: only a repeat penalty of 1 and
		// frequency and presence penalties of 0 are neutral.
		"frequency-1": with(func(p *Params) { p.FrequencyPenalty = 1 }),
		"presence-1":  with(func(p *Params) { p.PresencePenalty = 1 }),
	}
}

// testHistory is a history with repeats, that includes the peaked set's
// two favourites (7 and n−2) and the first tokens.
func testHistory(n int) []int {
	h := []int{7, 3, 3, n - 2, 0, 11, 7, 7, 5, 1}
	g := oracle.NewRand(112)
	for range 40 {
		h = append(h, g.Intn(n))
	}
	return append(h, 7, n-2, 2)
}

// TestC11_1_Candidates compares the candidates and their probabilities
// with the oracle's float64 run of the same chain (oracle.SamplingDist),
// for each stage alone and together, on logits with ties and masks.
func TestC11_1_Candidates(t *testing.T) {
	const n = 300
	// A long history with repeats, and one of a single token: a window of
	// one is a window to penalize too.
	for _, hist := range [][]int{testHistory(n), {7}} {
		candidatesWith(t, n, hist)
	}
}

func candidatesWith(t *testing.T, n int, hist []int) {
	configs := chainConfigs()
	maps.Copy(configs, edgeConfigs())
	for cname, p := range configs {
		s, err := NewSampler(n, p)
		if err != nil {
			t.Fatalf("%s: NewSampler: %v", cname, err)
		}
		for lname, logits := range logitSets(n) {
			what := fmt.Sprintf("%s on %s logits, a history of %d tokens", cname, lname, len(hist))
			keep := append([]float32(nil), logits...)
			c, err := s.Candidates(logits, hist)
			if err != nil {
				t.Fatalf("%s: Candidates: %v", what, err)
			}
			for i := range logits {
				if math.Float32bits(logits[i]) != math.Float32bits(keep[i]) {
					t.Fatalf("%s: Candidates changed logits[%d] from %v to %v; the caller's logits are read-only", what, i, keep[i], logits[i])
				}
			}
			checkCandidates(t, what, c, oracleDists(logits, hist, p)...)
		}
	}
}

// oracleDists returns the oracle's distribution for p and, when top-p is
// on, those for top-p nudged by ±1e-5: where they differ, the nucleus ends
// within 1e-5 of p (300 equal logits at top-p 0.9 end exactly on it), and
// float32 probabilities summed in another order may land on either side,
// so either answer is right.
func oracleDists(logits []float32, hist []int, p Params) [][]float64 {
	o := toOracle(p)
	dists := [][]float64{oracle.SamplingDist(logits, hist, o)}
	if p.TopP < 1 {
		for _, d := range []float64{-1e-5, 1e-5} {
			q := o
			q.TopP = min(1, max(0, p.TopP+d))
			dists = append(dists, oracle.SamplingDist(logits, hist, q))
		}
	}
	return dists
}

// checkCandidates compares a candidate list with the oracle's distribution
// over the whole vocabulary (or with any of several, if given).
func checkCandidates(t *testing.T, what string, c []Candidate, wants ...[]float64) {
	t.Helper()
	var first string
	for _, want := range wants {
		msg := candidatesDiffer(c, want)
		if msg == "" {
			return
		}
		if first == "" {
			first = msg
		}
	}
	t.Fatalf("%s: %s", what, first)
}

// candidatesDiffer says how c differs from the distribution want, or "".
func candidatesDiffer(c []Candidate, want []float64) string {
	got := map[int]float64{}
	sum := 0.0
	for _, x := range c {
		if _, dup := got[x.ID]; dup {
			return fmt.Sprintf("token %d appears twice among the candidates", x.ID)
		}
		got[x.ID] = x.P
		sum += x.P
	}
	// Written as !(… <= …) so that a NaN fails: every comparison with NaN
	// is false.
	if !(math.Abs(sum-1) <= 1e-9) {
		return fmt.Sprintf("the candidates' probabilities sum to %v, want 1", sum)
	}
	for id, q := range want {
		pr, kept := got[id]
		switch {
		case q > 0 && !kept:
			return fmt.Sprintf("token %d (oracle probability %.4g) is missing from the %d candidates", id, q, len(c))
		case q == 0 && kept:
			return fmt.Sprintf("token %d is a candidate (p %.4g), but the chain removes it (oracle probability 0)", id, pr)
		case kept && !(math.Abs(pr-q) <= 1e-5*q+1e-12):
			return fmt.Sprintf("token %d has probability %.9g, the oracle's is %.9g", id, pr, q)
		}
	}
	return ""
}

// TestC11_1_BadLogits: bad input is an error naming what is wrong, and the
// sampler works normally afterwards.
func TestC11_1_BadLogits(t *testing.T) {
	const n = 50
	s, err := NewSampler(n, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	good := oracle.NewRand(113).Normal(n, 0, 1)
	withAt := func(i int, v float32) []float32 {
		l := append([]float32(nil), good...)
		l[i] = v
		return l
	}
	masked := make([]float32, n)
	for i := range masked {
		masked[i] = float32(math.Inf(-1))
	}
	cases := []struct {
		name    string
		logits  []float32
		history []int
		says    string
	}{
		{"a NaN logit", withAt(17, float32(math.NaN())), nil, "17"},
		{"a +Inf logit", withAt(23, float32(math.Inf(1))), nil, "23"},
		{"too few logits", good[:n-1], nil, fmt.Sprint(n - 1)},
		{"too many logits", append(append([]float32(nil), good...), 0), nil, fmt.Sprint(n + 1)},
		{"every token masked", masked, nil, "finite"},
		{"a history token past the vocabulary", good, []int{1, n}, fmt.Sprint(n)},
		{"a negative history token", good, []int{-3}, "-3"},
		{"history token -1", good, []int{4, -1}, "-1"}, // the first id below the vocabulary
	}
	for _, c := range cases {
		if _, err := s.Candidates(c.logits, c.history); !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Candidates with %s: %v; want an error wrapping unit00.ErrInvalid that says %q", c.name, err, c.says)
		}
		if _, err := s.Sample(c.logits, c.history); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("Sample with %s: %v; want the error Candidates gives", c.name, err)
		}
	}
	// The largest finite logits, and −Inf (a masked token), are not errors.
	for _, v := range []float32{math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(-1))} {
		if _, err := s.Candidates(withAt(9, v), nil); err != nil {
			t.Errorf("Candidates with logit 9 = %v: %v; only NaN and +Inf are bad logits", v, err)
		}
	}
	c, err := s.Candidates(good, nil)
	if err != nil {
		t.Fatalf("Candidates after the bad calls: %v", err)
	}
	checkCandidates(t, "defaults after bad calls", c, oracle.SamplingDist(good, nil, toOracle(DefaultParams())))
}

// TestC11_1_Seed: equal seeds replay equal draws; another seed gives
// other draws; every draw is a candidate.
// TestC11_1_TopPExact: top-p after top-k, where the kept mass reaches p
// exactly: top-k 4 keeps four equal logits, of probability 1/4 each,
// exactly, so at top-p 0.5 the first two (lowest ids on the tie) reach it
// and the other two go.
func TestC11_1_TopPExact(t *testing.T) {
	logits := []float32{0, 0, 0, 0, -3, -4}
	s, err := NewSampler(len(logits), Params{Temperature: 1, RepeatPenalty: 1, TopK: 4, TopP: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Candidates(logits, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int, len(c))
	for i, x := range c {
		ids[i] = x.ID
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []int{0, 1}) {
		t.Errorf("top-k 4 then top-p 0.5 over four equal logits (1/4 each once top-k has kept them): candidates %v, want [0 1]: 1/4 + 1/4 reaches 0.5 exactly, and reaching p is enough", ids)
	}
}

func TestC11_1_Seed(t *testing.T) {
	const n = 64
	logits := oracle.NewRand(114).Normal(n, 0, 0.5) // flat: many candidates
	draws := func(seed uint64) []int {
		p := DefaultParams()
		p.Seed = seed
		s, err := NewSampler(n, p)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := s.Candidates(logits, nil)
		ok := map[int]bool{}
		for _, x := range c {
			ok[x.ID] = true
		}
		var out []int
		for range 100 {
			id, err := s.Sample(logits, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !ok[id] {
				t.Fatalf("Sample drew token %d, which is not a candidate", id)
			}
			out = append(out, id)
		}
		return out
	}
	a, b, c := draws(42), draws(42), draws(43)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("two samplers seeded 42 drew\n%v\n%v\nwant the same draws: the random source must come from Params.Seed alone", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatalf("seeds 42 and 43 drew the same 100 tokens: the seed is not used")
	}
}

func TestC11_1_NoAllocs(t *testing.T) {
	if oracle.RaceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	const n = 32000
	logits := oracle.NewRand(115).Normal(n, 0, 3)
	hist := testHistory(n)
	for name, p := range map[string]Params{"defaults": DefaultParams(), "penalties": chainConfigs()["defaults-penalized"], "greedy": chainConfigs()["greedy"]} {
		s, err := NewSampler(n, p)
		if err != nil {
			t.Fatal(err)
		}
		if a := oracle.AllocsPerRun(20, func() { _, _ = s.Sample(logits, hist) }); a != 0 {
			t.Errorf("Sample (%s) allocates %v times per call after the first; keep the candidates and penalty buffers in the Sampler", name, a)
		}
	}
}
