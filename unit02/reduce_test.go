package unit02

import (
	"math"
	"runtime"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// sumBound is the error Sum may make on x: (64 + log₂ n)·ε·Σ|xᵢ|, the bound
// of pairwise summation with naive blocks of up to 64 elements. Plain
// left-to-right summation is only bounded by (n − 1)·ε·Σ|xᵢ|.
func sumBound(x []float32) float64 {
	return (64 + math.Log2(float64(len(x))+1)) * eps32 * oracle.SumAbs(x)
}

// beyond reports whether got is further than bound from want, or NaN: a
// plain |got − want| > bound is false for a NaN and would let it pass.
func beyond(got, want, bound float64) bool {
	return !(math.Abs(got-want) <= bound)
}

// hardSum is an input on which left-to-right float32 summation fails: one
// large value first, then a million values each below half its ulp, every
// one of which a running float32 total rounds away.
func hardSum() []float32 {
	x := make([]float32, 1<<20+1)
	x[0] = 1e4
	for i := 1; i < len(x); i++ {
		x[i] = 1e-4
	}
	return x
}

// mixedScales returns n values whose magnitudes span 1e-40 (subnormal) to
// 1e30, in random order and sign: sums of them cannot overflow float32.
func mixedScales(g *oracle.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(math.Pow(10, 70*g.Float64()-40) * float64(1-2*g.Intn(2)))
	}
	return x
}

func TestC2_5_Sum(t *testing.T) {
	x := hardSum()
	exact := oracle.Sum(x) // 10104.8576
	var naive float32
	for _, v := range x {
		naive += v
	}
	bound := sumBound(x)
	if math.Abs(float64(naive)-exact) <= bound {
		t.Fatalf("the test's own premise failed: naive summation (%v) met the bound", naive)
	}
	t.Logf("naive left-to-right sum: %v, exact %.4f, error %.3g against a bound of %.3g", naive, exact, math.Abs(float64(naive)-exact), bound)
	if got := Sum(x); beyond(float64(got), exact, bound) {
		t.Errorf("Sum(1e4 then 2^20 × 1e-4) = %v, exact %.4f: error %.3g exceeds the bound %.3g; "+
			"adding left to right loses every small term (pairwise or compensated summation keeps them)", got, exact, math.Abs(float64(got)-exact), bound)
	}
	g := oracle.NewRand(51)
	for _, n := range append(lengths, 0, 1<<16+3) {
		for _, x := range [][]float32{g.Normal(n, 0, 1), g.Uniform(n, 0, 1e6), g.Normal(n, 0, 1e30), mixedScales(g, n)} {
			exact := oracle.Sum(x)
			if got := Sum(x); beyond(float64(got), exact, sumBound(x)) {
				t.Errorf("Sum of %d values = %v, exact %v: error %.3g exceeds %.3g", n, got, exact, math.Abs(float64(got)-exact), sumBound(x))
			}
		}
	}
}

func TestC2_5_MaxMeanArgmax(t *testing.T) {
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	posInf := float32(math.Inf(1))
	tests := []struct {
		x      []float32
		max    float32
		argmax int
	}{
		{[]float32{3, 1, 4, 1, 5}, 5, 4},
		{[]float32{-3, -1, -4}, -1, 1},
		{[]float32{7, 7, 2, 7}, 7, 0},          // ties go to the lowest index
		{[]float32{negInf, negInf}, negInf, 0}, // all −Inf: the first
		{[]float32{1, nan, 3}, nan, 2},         // Max propagates NaN, Argmax skips it
		{[]float32{nan, nan}, nan, -1},         // nothing to choose
		{[]float32{}, negInf, -1},              //
		{[]float32{negZero, 0}, 0, 0},          // −0 and +0 are equal: the first wins
		{[]float32{nan, 2, 1}, nan, 1},         // a NaN first: Argmax starts at the first number
		{[]float32{1, 3, nan}, nan, 1},         // a NaN last still makes Max NaN
		{[]float32{-5}, -5, 0},                 // one element
		{[]float32{1, posInf, 2}, posInf, 1},   //
	}
	for _, tc := range tests {
		if got := Max(tc.x); got != tc.max && !(tc.max != tc.max && got != got) {
			t.Errorf("Max(%v) = %v, want %v", tc.x, got, tc.max)
		}
		if got := Argmax(tc.x); got != tc.argmax {
			t.Errorf("Argmax(%v) = %d, want %d", tc.x, got, tc.argmax)
		}
	}
	g := oracle.NewRand(52)
	for _, n := range lengths {
		x := g.Normal(n, 5, 2)
		if got, want := float64(Mean(x)), oracle.Sum(x)/float64(n); beyond(got, want, sumBound(x)/float64(n)+eps32*math.Abs(want)) {
			t.Errorf("Mean of %d values = %v, want %v", n, got, want)
		}
	}
	if m := Mean(nil); m == m {
		t.Errorf("Mean of nothing = %v, want NaN", m)
	}
}

func TestC2_5_ParallelSum(t *testing.T) {
	x := oracle.NewRand(53).Normal(1<<20+7, 1, 1)
	exact := oracle.Sum(x)
	first := ParallelSum(x, 3)
	for _, w := range []int{-1, 0, 1, 2, 3, 4, 7, 64} {
		got := ParallelSum(x, w)
		if beyond(float64(got), exact, sumBound(x)) {
			t.Errorf("ParallelSum(2^20+7 values, %d workers) = %v, exact %v: error exceeds %.3g", w, got, exact, sumBound(x))
		}
	}
	for i := 0; i < 5; i++ {
		if again := ParallelSum(x, 3); again != first {
			t.Fatalf("ParallelSum with 3 workers gave %v, then %v: combine the partial sums in a fixed order, not as they finish", first, again)
		}
	}
	// Bit for bit, from the contract: one worker sums the one chunk with
	// Sum, and 0 workers means GOMAXPROCS of them. Three, so that the
	// chunks are not Sum's own halves (a pairwise Sum adds the same two
	// halves as two workers do).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	if one, sum := ParallelSum(x, 1), Sum(x); one != sum {
		t.Errorf("ParallelSum with 1 worker = %v, Sum = %v: one worker is one chunk, summed by Sum", one, sum)
	}
	if zero, all := ParallelSum(x, 0), ParallelSum(x, runtime.GOMAXPROCS(0)); zero != all {
		t.Errorf("ParallelSum with 0 workers = %v, with GOMAXPROCS (%d) workers = %v: 0 means GOMAXPROCS", zero, runtime.GOMAXPROCS(0), all)
	}
	if got := ParallelSum([]float32{1, 2}, 8); got != 3 {
		t.Errorf("ParallelSum of 2 values with 8 workers = %v, want 3", got)
	}
	if got := ParallelSum(nil, 4); got != 0 {
		t.Errorf("ParallelSum of nothing = %v", got)
	}
}
