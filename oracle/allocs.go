package oracle

import (
	"runtime"
	"testing"
)

// AllocsPerRun is testing.AllocsPerRun made steady. A garbage collection
// empties the runtime's own caches (among them the records a goroutine
// needs to block on a channel or a WaitGroup), and each processor refills
// its cache the first times a goroutine blocks there, allocating inside the
// runtime. So AllocsPerRun collects first, then calls f ten times, enough
// for every processor's cache to fill, and only then counts: the figure is
// about the code under test, and the same on every run.
func AllocsPerRun(runs int, f func()) float64 {
	runtime.GC()
	for range 10 {
		f()
	}
	return testing.AllocsPerRun(runs, f)
}
