package unit12

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit11"
)

func TestC12_2_Dense(t *testing.T) {
	dst := []float64{9, 9, 9, 9, 9, 9}
	got := Dense(dst, []unit11.Candidate{{ID: 4, P: 0.75}, {ID: 0, P: 0.25}})
	want := []float64{0.25, 0, 0, 0, 0.75, 0}
	if fmt.Sprint(got) != fmt.Sprint(want) || &got[0] != &dst[0] {
		t.Fatalf("Dense(candidates 4: 0.75, 0: 0.25) into a slice of 9s = %v; want %v, written into dst: every token not a candidate has probability 0", got, want)
	}
	if got := Dense(dst, nil); fmt.Sprint(got) != fmt.Sprint(make([]float64, 6)) {
		t.Fatalf("Dense of no candidates = %v; want all zeros", got)
	}
}

func TestC12_2_Accept(t *testing.T) {
	for _, tc := range []struct {
		p, q float64 // of the drafted token
		u    float64
		want bool
	}{
		{0.25, 0.5, 0, true},                 // ratio 1/2
		{0.25, 0.5, 0.4999999, true},         // just under it
		{0.25, 0.5, 0.5, false},              // at it: u < ratio is false
		{0.25, 0.5, 0.75, false},             // above it
		{0.5, 0.25, 0.9999999, true},         // the target likes it more: always
		{0.3, 0.3, 0.9999999, true},          // equally: always
		{0, 0.5, 0, false},                   // the target never picks it: never
		{1, 1, 0.9999999, true},              // both certain (greedy agreeing)
		{0, 1, 0, false},                     // greedy disagreeing
		{0.125, 1, 0.1249999, true},          // a deterministic draft: u < p
		{0.125, 1, 0.125, false},             //
		{0.0625, 0.125, 0.49999999999, true}, // ratio 1/2 again, at another scale
	} {
		p := []float64{0.1, tc.p, 0.2}
		q := []float64{0.3, tc.q, 0.1}
		if got := Accept(p, q, 1, tc.u); got != tc.want {
			t.Errorf("Accept with p(x) = %v, q(x) = %v, u = %v = %v; want %v: accept when u < p(x)/q(x)", tc.p, tc.q, tc.u, got, tc.want)
		}
	}
}

func TestC12_2_Residual(t *testing.T) {
	for _, tc := range []struct {
		name string
		p, q []float64
		want []float64
		why  string
	}{
		{"one token gains", []float64{0.5, 0.3, 0.2, 0}, []float64{0.2, 0.5, 0.2, 0.1}, []float64{1, 0, 0, 0},
			"max(0, p − q) is 0.3 on token 0 alone"},
		{"two gain", []float64{0.4, 0.4, 0.2}, []float64{0.1, 0.3, 0.6}, []float64{0.75, 0.25, 0},
			"max(0, p − q) = (0.3, 0.1, 0), normalized by its sum 0.4"},
		{"the draft missed a token", []float64{0.5, 0.5, 0}, []float64{0, 0.5, 0.5}, []float64{1, 0, 0},
			"a token q gave 0 keeps all of p"},
		{"greedy, disagreeing", []float64{0, 0, 1}, []float64{1, 0, 0}, []float64{0, 0, 1},
			"the target's choice"},
		{"equal", []float64{0.25, 0.75}, []float64{0.25, 0.75}, []float64{0.25, 0.75},
			"nothing can be rejected where p = q: the residual is p"},
	} {
		dst := []float64{7, 7, 7, 7}[:len(tc.p)]
		got := Residual(dst, tc.p, tc.q)
		if &got[0] != &dst[0] {
			t.Errorf("Residual (%s) did not write into dst", tc.name)
		}
		oracle.AssertClose(t, fmt.Sprintf("Residual(%s) of p = %v, q = %v (%s)", tc.name, tc.p, tc.q, tc.why), toF32(got), tc.want, oracle.Tol{Atol: 1e-7})
	}
}

func TestC12_2_Draw(t *testing.T) {
	dist := []float64{0, 0.25, 0, 0.5, 0.25, 0}
	for _, tc := range []struct {
		u    float64
		want int
	}{
		{0, 1}, {0.2499999, 1}, {0.25, 3}, {0.7499999, 3}, {0.75, 4}, {0.9999999, 4},
	} {
		if got := Draw(dist, tc.u); got != tc.want {
			t.Errorf("Draw(%v, u = %v) = %d; want %d: the first token whose running sum exceeds u", dist, tc.u, got, tc.want)
		}
	}
	// Rounding: the sum falls short of u; the last token that can be drawn.
	short := []float64{0.5, 0.4999999999, 0, 0}
	if got := Draw(short, 0.99999999999); got != 1 {
		t.Errorf("Draw(%v, u = 0.99999999999) = %d; want 1: when rounding leaves the sum under u, the last token with a probability above 0, never one of probability 0", short, got)
	}
	if got := Draw([]float64{0, 0, 1}, 0.5); got != 2 {
		t.Errorf("Draw(one-hot on 2, 0.5) = %d; want 2", got)
	}
	if got := Draw([]float64{0, 0, 0}, 0.5); got != -1 {
		t.Errorf("Draw of a distribution with no token above 0 = %d; want −1", got)
	}
}

// TestC12_2_Exact: the rule's whole point. For distributions p and q of
// every kind, the token that one judged position yields, the drafted token
// x ~ q if accepted and a draw from the residual if not, is distributed as
// p, exactly:
//
//	P(y) = q(y)·a(y) + (Σ_x q(x)·(1 − a(x)))·r(y) = p(y)
//
// where a(x) is the acceptance probability, the u below which Accept says
// yes (found by bisection), and r is Residual's distribution.
func TestC12_2_Exact(t *testing.T) {
	g := oracle.NewRand(122)
	random := func(n, zeros int) []float64 {
		v := make([]float64, n)
		sum := 0.0
		for i := range v {
			v[i] = g.Float64()
			sum += v[i]
		}
		for _, i := range g.Perm(n)[:zeros] {
			sum -= v[i]
			v[i] = 0
		}
		for i := range v {
			v[i] /= sum
		}
		return v
	}
	oneHot := func(n, i int) []float64 { v := make([]float64, n); v[i] = 1; return v }
	cases := []struct {
		name string
		p, q []float64
	}{
		{"p = q", nil, nil},
		{"greedy agreeing", oneHot(12, 3), oneHot(12, 3)},
		{"greedy disagreeing", oneHot(12, 3), oneHot(12, 7)},
		{"a deterministic draft", random(12, 4), oneHot(12, 5)},
		{"a deterministic draft of a token p excludes", random(12, 0), oneHot(12, 0)},
	}
	same := random(12, 3)
	cases[0].p, cases[0].q = same, same
	cases[4].p[0] = 0
	normalize(cases[4].p)
	for i := range 20 {
		cases = append(cases, struct {
			name string
			p, q []float64
		}{fmt.Sprintf("random %d", i), random(12, i%5), random(12, (i/5)%4)})
	}
	for _, tc := range cases {
		n := len(tc.p)
		a := make([]float64, n)
		for x := range n {
			if tc.q[x] > 0 {
				a[x] = threshold(func(u float64) bool { return Accept(tc.p, tc.q, x, u) })
			}
		}
		reject := 0.0
		for x := range n {
			reject += tc.q[x] * (1 - a[x])
		}
		r := Residual(make([]float64, n), tc.p, tc.q)
		got := make([]float32, n)
		want := make([]float64, n)
		for y := range n {
			got[y] = float32(tc.q[y]*a[y] + reject*r[y])
			want[y] = tc.p[y]
		}
		oracle.AssertClose(t, fmt.Sprintf("%s: the distribution of the token a judged position yields, against p", tc.name), got, want, oracle.Tol{Atol: 1e-6})
	}
}

// threshold is the u in [0, 1] below which accept says yes, by bisection.
func threshold(accept func(u float64) bool) float64 {
	if !accept(0) {
		return 0
	}
	lo, hi := 0.0, 1.0
	if accept(math.Nextafter(1, 0)) {
		return 1
	}
	for range 60 {
		mid := (lo + hi) / 2
		if accept(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

func normalize(v []float64) {
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	for i := range v {
		v[i] /= sum
	}
}

func toF32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
