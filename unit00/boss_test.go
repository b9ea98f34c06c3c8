package unit00

import (
	"testing"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/oracle"
)

// The boss "green, clean and free": the package passes gofmt, go vet and the
// race detector (forge checks those gates), and a release Assert in a hot loop
// costs nothing measurable.

// sumSquares is the hot loop without assertions.
//
//go:noinline
func sumSquares(x []float32) float32 {
	var s float32
	for i := range x {
		s += x[i] * x[i]
	}
	return s
}

// sumSquaresAsserted is the same loop guarded by an Assert per element. With
// a release Assert it must compile to the same code.
//
//go:noinline
func sumSquaresAsserted(x []float32) float32 {
	var s float32
	for i := range x {
		Assert(x[i] == x[i], "NaN in input")
		s += x[i] * x[i]
	}
	return s
}

func TestBoss0_GreenClean(t *testing.T) {
	x := oracle.NewRand(1).Normal(4096, 0, 1)
	if a, b := sumSquaresAsserted(x), sumSquares(x); a != b {
		t.Fatalf("the asserted loop computed %v, the plain loop %v: Assert must not change results", a, b)
	}
	allocs := testing.AllocsPerRun(100, func() { Assert(len(x) > 0, "empty input") })
	if allocs != 0 {
		t.Errorf("a release Assert call made %v heap allocations; it must make none", allocs)
	}
}

func BenchmarkBoss0_GreenClean(b *testing.B) {
	x := oracle.NewRand(1).Normal(1<<12, 0, 1) // 16 KiB: in L1, so the loop is bound by the core, not memory
	rounds := 31
	if testing.Short() {
		rounds = 15
	}
	const reps = 500 // about 2 ms a timing, long enough to dwarf timer and scheduling noise
	var sink float32
	for b.Loop() {
		ratio := bosses.PairedRatio(rounds,
			func() {
				for range reps {
					sink += sumSquares(x)
				}
			},
			func() {
				for range reps {
					sink += sumSquaresAsserted(x)
				}
			})
		b.ReportMetric((ratio-1)*100, "assert-overhead-%")
	}
	if sink == 0 {
		b.Fatal("the loops computed nothing")
	}
}
