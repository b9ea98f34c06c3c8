package oracle

import (
	"runtime"
	"testing"
)

// AllocsPerRun is testing.AllocsPerRun made steady. The runtime caches the
// records a goroutine needs to block on a channel or a WaitGroup; a garbage
// collection drops its central cache, and the first blocking operations
// after one may allocate, inside the runtime, until the caches fill again.
// So AllocsPerRun collects first, then calls f ten times, and only then
// counts (testing.AllocsPerRun runs f at GOMAXPROCS 1 after one more
// warm-up call): the figure is about the code under test, the same on every
// run.
func AllocsPerRun(runs int, f func()) float64 {
	runtime.GC()
	for range 10 {
		f()
	}
	return testing.AllocsPerRun(runs, f)
}
