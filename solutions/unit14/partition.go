package unit14

import "github.com/llmforge/forge/unit00"

// Span returns part t's share [lo, hi) of n items split over parts
// threads: the shares are contiguous and in order (part 0 starts at 0, part
// parts−1 ends at n, each starts where the one before ends), every
// boundary but n is a multiple of align (a kernel that takes four rows at
// a time gets whole fours), and no share is more than align items longer
// than another, so no thread is left with a tail while the others wait.
// The longer shares go last, where the short end of n (when align does
// not divide it) falls. With more parts than chunks of align, some shares
// are empty. It panics (unit00.Check) unless 0 ≤ t < parts, n ≥ 0 and
// align ≥ 1.
func Span(t, parts, n, align int) (lo, hi int) {
	unit00.Check(t >= 0 && t < parts && n >= 0 && align > 0, "Span: want 0 ≤ t < parts, n ≥ 0, align ≥ 1")
	chunks := (n + align - 1) / align
	lo = min(t*chunks/parts*align, n)
	hi = min((t+1)*chunks/parts*align, n)
	return lo, hi
}
