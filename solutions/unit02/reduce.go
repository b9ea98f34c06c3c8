package unit02

import (
	"math"
	"runtime"
	"sync"
)

// pairwiseBlock is the length below which Sum adds naively. Blocks keep the
// recursion cheap; the error bound grows with the block length plus log₂ of
// the number of blocks.
const pairwiseBlock = 64

// Sum returns the sum of x by pairwise summation: halves are summed
// separately and then added, so each element takes part in about log₂(n)
// additions instead of up to n. The rounding error stays below
// (64 + log₂ n)·ε·Σ|xᵢ| (the bound of pairwise summation over naive blocks
// of up to 64) where plain left-to-right summation can reach n·ε·Σ|xᵢ|.
func Sum(x []float32) float32 {
	if len(x) <= pairwiseBlock {
		var s float32
		for _, v := range x {
			s += v
		}
		return s
	}
	h := len(x) / 2
	return Sum(x[:h]) + Sum(x[h:])
}

// sum64 is Σx accumulated in float64, for the statistics of a row.
func sum64(x []float32) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v)
	}
	return s
}

// Max returns the largest element of x, −Inf for an empty x. A NaN anywhere
// makes the result NaN.
func Max(x []float32) float32 {
	m := float32(math.Inf(-1))
	for _, v := range x {
		if v > m || v != v {
			m = v
			if v != v {
				return v
			}
		}
	}
	return m
}

// Mean returns Sum(x)/len(x), NaN for an empty x.
func Mean(x []float32) float32 {
	if len(x) == 0 {
		return float32(math.NaN())
	}
	return float32(float64(Sum(x)) / float64(len(x)))
}

// Argmax returns the index of the largest element of x; ties go to the
// lowest index, so greedy decoding is deterministic. NaNs are skipped. It
// returns −1 when x is empty or all NaN.
func Argmax(x []float32) int {
	best := -1
	for i, v := range x {
		if v == v && (best < 0 || v > x[best]) {
			best = i
		}
	}
	return best
}

// ParallelSum returns the sum of x split across workers goroutines (0 means
// GOMAXPROCS): each sums its own contiguous chunk with Sum in a local
// variable and writes it once, to a slot padded to a cache line of its own,
// so no two workers ever write to the same line while they run (false
// sharing). The partial sums are then added pairwise, in chunk order, so the
// result does not depend on which goroutine finishes first.
func ParallelSum(x []float32, workers int) float32 {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(x)/parallelMin))
	if workers == 1 {
		return Sum(x)
	}
	partial := make([]paddedSum, workers)
	var wg sync.WaitGroup
	for w := range partial {
		lo, hi := w*len(x)/workers, (w+1)*len(x)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			partial[w].v = Sum(x[lo:hi])
		}()
	}
	wg.Wait()
	sums := make([]float32, workers)
	for w := range partial {
		sums[w] = partial[w].v
	}
	return Sum(sums)
}

// parallelMin is the smallest chunk worth a goroutine: starting one costs
// about as much as summing a few thousand floats.
const parallelMin = 1 << 14

// paddedSum is one worker's result on a 64-byte cache line of its own.
type paddedSum struct {
	v float32
	_ [60]byte
}
