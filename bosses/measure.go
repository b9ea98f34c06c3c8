package bosses

import (
	"slices"
	"time"
)

// Median returns the median of xs (the mean of the middle two for an even
// count); NaN-free input is assumed. It does not modify xs.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// PairedRatio estimates how much longer other takes than base: it times the
// two back to back, rounds times, swapping which goes first each round so
// neither always runs on a warmer cache or a faster moment, and returns the
// median of the per-round ratios t_other/t_base. Pairing cancels the slow
// drifts of a shared machine, and the median ignores the rounds a
// neighbour's burst of work hit one side of the pair.
func PairedRatio(rounds int, base, other func()) float64 {
	ratios := make([]float64, rounds)
	for r := range ratios {
		var tb, to time.Duration
		if r%2 == 0 {
			tb, to = timeIt(base), timeIt(other)
		} else {
			to, tb = timeIt(other), timeIt(base)
		}
		ratios[r] = float64(to) / float64(tb)
	}
	return Median(ratios)
}

func timeIt(f func()) time.Duration {
	start := now()
	f()
	return now().Sub(start)
}

// now is the clock timeIt reads; the tests replace it with one that only
// the timed functions advance.
var now = time.Now

// Copy copies src into dst (len(dst) floats) the way a kernel streams
// memory: plain vector loads and stores, no non-temporal stores (which
// Go's copy uses for large blocks and which skip the read a normal store
// makes of its cache line). Its speed on arrays far larger than the caches
// is the memory bandwidth a streaming kernel can hope for, so bandwidth
// figures are fractions of it, measured side by side in the same run.
func Copy(dst, src []float32) {
	if len(src) < len(dst) {
		panic("bosses.Copy: src shorter than dst")
	}
	copyStream(dst, src)
}

// Seconds times one run of f.
func Seconds(f func()) float64 { return timeIt(f).Seconds() }
