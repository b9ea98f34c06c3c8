package unit02

// Sum returns the sum of x, accurately: its rounding error stays below
// (64 + log₂ n)·ε·Σ|xᵢ|, the bound of pairwise summation over naive blocks
// of up to 64 elements, where plain left-to-right summation can reach
// n·ε·Σ|xᵢ|.
func Sum(x []float32) float32 {
	panic("TODO(2.5): write Sum, see docs/unit02.md")
}

// Max returns the largest element of x, −Inf for an empty x. A NaN anywhere
// makes the result NaN.
func Max(x []float32) float32 {
	panic("TODO(2.5): write Max, see docs/unit02.md")
}

// Mean returns Sum(x)/len(x), NaN for an empty x.
func Mean(x []float32) float32 {
	panic("TODO(2.5): write Mean, see docs/unit02.md")
}

// Argmax returns the index of the largest element of x; ties go to the
// lowest index, so greedy decoding is deterministic. NaNs are skipped. It
// returns −1 when x is empty or all NaN.
func Argmax(x []float32) int {
	panic("TODO(2.5): write Argmax, see docs/unit02.md")
}

// ParallelSum returns the sum of x split across workers goroutines (0 means
// GOMAXPROCS): each sums its own contiguous chunk with Sum in a local
// variable and writes it once, to a slot padded to a cache line of its own,
// so no two workers ever write to the same line while they run (false
// sharing). The partial sums are then added pairwise, in chunk order, so the
// result does not depend on which goroutine finishes first.
func ParallelSum(x []float32, workers int) float32 {
	panic("TODO(2.5): write ParallelSum, see docs/unit02.md")
}
