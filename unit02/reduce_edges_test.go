package unit02

import (
	"fmt"
	"math"
	"testing"
)

// TestC2_5_MaxSignedZero: −0 is never larger than +0, so Max of a +0
// followed by a −0 is +0 (a strict > keeps the first of equal values, and
// the builtin max prefers +0 too), and Max of −0s is −0.
func TestC2_5_MaxSignedZero(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, c := range []struct {
		x    []float32
		want float32
	}{
		{[]float32{0, negZero}, 0},
		{[]float32{0, negZero, -1}, 0},
		{[]float32{negZero, negZero}, negZero},
	} {
		if got := Max(c.x); got != c.want || math.Signbit(float64(got)) != math.Signbit(float64(c.want)) {
			t.Errorf("Max(%v) = %v (sign bit %v), want %v (sign bit %v): a −0 after a +0 must not replace it, use a strict >",
				c.x, got, math.Signbit(float64(got)), c.want, math.Signbit(float64(c.want)))
		}
	}
}

// deepPathSum returns n values on which every addition along one path of a
// summation tree rounds away half an ulp: the tree of a split that keeps
// the larger part on the right (at a third) or on the left (at two thirds),
// with blocks of up to 64. That path ends in a block of 2^24 followed by
// ones (2^24 + 1 rounds to 2^24), and every sibling subtree along it sums
// to 1, which the partial sum near 2^24 rounds away again. A tree that
// halves is only log₂ n deep, so the bound holds; a lopsided one is
// log₁.₅ n deep and loses more than it allows.
func deepPathSum(n int, right bool) []float32 {
	x := make([]float32, n)
	lo, hi := 0, n
	for hi-lo > 64 {
		if right {
			x[lo] = 1
			lo += (hi - lo) / 3
		} else {
			hi = lo + 2*(hi-lo)/3
			x[hi] = 1
		}
	}
	x[lo] = 1 << 24
	for i := lo + 1; i < hi; i++ {
		x[i] = 1
	}
	return x
}

// TestC2_5_SumDeepPath checks Sum's bound on inputs that defeat a summation
// tree deeper than log₂ n: split at the middle, not off it.
func TestC2_5_SumDeepPath(t *testing.T) {
	for _, right := range []bool{true, false} {
		x := deepPathSum(1<<20, right)
		exact, bound := 0.0, sumBound(x)
		for _, v := range x {
			exact += float64(v) // integers below 2^53: exact
		}
		if got := Sum(x); beyond(float64(got), exact, bound) {
			t.Errorf("Sum of 2^20 values built to round away at every level of a lopsided tree (right %v) = %v, exact %v: error %v exceeds the bound %.4g; split at the middle, so the tree is log₂ n deep",
				right, got, exact, math.Abs(float64(got)-exact), bound)
		}
	}
}

// TestC2_5_ParallelSumChunks checks ParallelSum's bits against the
// contract: a short x is not worth a goroutine and is summed serially (one
// worker, Sum's bits, whatever workers asks for), and W workers on a long x
// give Sum of the W chunk sums in chunk order, chunk w being
// x[⌊wn/W⌋:⌊(w+1)n/W⌋]. The values (2^24, then ones) make every other
// grouping round differently.
func TestC2_5_ParallelSumChunks(t *testing.T) {
	ones := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = 1
		}
		x[0] = 1 << 24
		return x
	}
	for _, n := range []int{3, 64, 100, 500} {
		x := ones(n)
		for _, w := range []int{1, 2, 4, 8} {
			if got, want := ParallelSum(x, w), Sum(x); got != want {
				t.Errorf("ParallelSum(2^24 then %d ones, %d workers) = %v, Sum = %v: one worker, or a slice this short, is summed serially by Sum",
					n-1, w, got, want)
			}
		}
	}
	// Chunks of over 150 000 values each: worth a goroutine under any
	// sensible threshold, so W workers really are W.
	x := ones(3 << 18)
	for _, w := range []int{2, 3, 5} {
		sums := make([]float32, w)
		for i := range sums {
			sums[i] = Sum(x[i*len(x)/w : (i+1)*len(x)/w])
		}
		if got, want := ParallelSum(x, w), Sum(sums); got != want {
			t.Errorf("ParallelSum(2^24 then %d ones, %d workers) = %v, want %v (Sum of the %d chunk sums %v): each worker sums chunk ⌊wn/W⌋:⌊(w+1)n/W⌋ with Sum, and the partials are added with Sum in chunk order",
				len(x)-1, w, got, want, w, fmt.Sprint(sums))
		}
	}
}
