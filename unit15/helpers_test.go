package unit15

import (
	"runtime"
	"testing"
	"time"
)

// noLeak fails t if f leaves goroutines behind: a launch that stops on an
// error must release every thread of its block.
func noLeak(t *testing.T, what string, f func()) {
	t.Helper()
	before := runtime.NumGoroutine()
	f()
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("%s left %d goroutines behind: a launch that fails must end every thread of its block (release the ones blocked on their turn)", what, runtime.NumGoroutine()-before)
}
