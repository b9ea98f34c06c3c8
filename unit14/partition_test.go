package unit14

import (
	"fmt"
	"testing"
)

func TestC14_3_Span(t *testing.T) {
	ns := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 255, 1000, 5632, 32000}
	for _, n := range ns {
		for parts := 1; parts <= 9; parts++ {
			for _, align := range []int{1, 2, 3, 4, 16, 64} {
				checkSpans(t, n, parts, align)
			}
		}
	}
	// A few worked by hand.
	for _, tc := range []struct{ t, parts, n, align, lo, hi int }{
		{0, 1, 10, 4, 0, 10}, // one part takes all
		{0, 2, 12, 1, 0, 6},  // halves
		{1, 2, 12, 1, 6, 12}, //
		{0, 2, 10, 4, 0, 4},  // three chunks of four (the last short): 1 and 2 chunks
		{1, 2, 10, 4, 4, 10}, // the longer share last, with the short end
		{2, 3, 2, 4, 0, 2},   // one chunk for three parts: it goes last
		{0, 3, 2, 4, 0, 0},   // the others are empty
		{3, 4, 0, 4, 0, 0},   // nothing to share
	} {
		lo, hi := Span(tc.t, tc.parts, tc.n, tc.align)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("Span(t=%d, parts=%d, n=%d, align=%d) = [%d, %d), want [%d, %d)", tc.t, tc.parts, tc.n, tc.align, lo, hi, tc.lo, tc.hi)
		}
	}
	for _, tc := range []struct{ t, parts, n, align int }{
		{0, 0, 10, 1}, {-1, 2, 10, 1}, {2, 2, 10, 1}, {0, 2, -1, 1}, {0, 2, 10, 0}, {0, 2, 10, -4}, {0, -1, 10, 1},
	} {
		mustPanic(t, fmt.Sprintf("Span(t=%d, parts=%d, n=%d, align=%d)", tc.t, tc.parts, tc.n, tc.align), func() { Span(tc.t, tc.parts, tc.n, tc.align) })
	}
}

// checkSpans checks the shares of n items over parts parts: contiguous and
// in order from 0 to n, boundaries on multiples of align, each share
// ⌊c/parts⌋ or ⌈c/parts⌉ chunks of align (c chunks in all), the last share
// one of the longest (the short end of n falls in it), so that no two
// shares differ by more than align items.
func checkSpans(t *testing.T, n, parts, align int) {
	t.Helper()
	chunks := (n + align - 1) / align
	fewest, most := chunks/parts, (chunks+parts-1)/parts
	next := 0
	minLen, maxLen := n+1, -1
	for p := range parts {
		lo, hi := Span(p, parts, n, align)
		where := fmt.Sprintf("Span(t=%d, parts=%d, n=%d, align=%d) = [%d, %d)", p, parts, n, align, lo, hi)
		switch {
		case lo != next:
			t.Fatalf("%s: share %d must start where share %d ended, at %d", where, p, p-1, next)
		case hi < lo || hi > n:
			t.Fatalf("%s: a share runs forward and stays inside [0, %d)", where, n)
		case hi != n && hi%align != 0:
			t.Fatalf("%s: the boundary %d is not a multiple of align = %d", where, hi, align)
		}
		got := (hi - lo + align - 1) / align
		if got < fewest || got > most {
			t.Fatalf("%s: %d chunks of %d, want %d or %d (%d chunks over %d parts)", where, got, align, fewest, most, chunks, parts)
		}
		if p == parts-1 && got != most {
			t.Fatalf("%s: the last share holds the short end of n and must have the most chunks, %d; it has %d", where, most, got)
		}
		minLen, maxLen = min(minLen, hi-lo), max(maxLen, hi-lo)
		next = hi
	}
	if next != n {
		t.Fatalf("Span over %d parts of n=%d (align %d) ends at %d: the last share must end at n", parts, n, align, next)
	}
	if maxLen-minLen > align {
		t.Fatalf("Span over %d parts of n=%d (align %d): shares of %d and %d items differ by more than align: a thread is left with a tail", parts, n, align, minLen, maxLen)
	}
}
