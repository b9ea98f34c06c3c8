package bosses

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestBarMet(t *testing.T) {
	at := Bar{Metric: "x", Cmp: AtLeast, Value: 0.6}
	most := Bar{Metric: "y", Cmp: AtMost, Value: 0}
	if !at.Met(0.6) || at.Met(0.59) || !most.Met(0) || most.Met(1) || !(Bar{Cmp: Info}).Met(-1) {
		t.Error("Bar.Met compares the wrong way")
	}
}

func TestTable(t *testing.T) {
	seen := map[int]bool{}
	for _, b := range Table {
		if seen[b.Unit] {
			t.Errorf("unit %d has two bosses", b.Unit)
		}
		seen[b.Unit] = true
		if b.Name == "" || b.Title == "" || (len(b.Bars) == 0 && len(b.Gates) == 0) {
			t.Errorf("boss of unit %d is incomplete: %+v", b.Unit, b)
		}
		for _, bar := range b.Bars {
			if bar.Metric == "" || bar.How == "" {
				t.Errorf("boss of unit %d has a bar without a metric or a method: %+v", b.Unit, bar)
			}
		}
	}
	if b, ok := For(1); !ok || b.TestName() != "TestBoss1_ZeroCopy" || b.BenchName() != "BenchmarkBoss1_ZeroCopy" {
		t.Errorf("For(1) = %+v", b)
	}
}

func TestMedian(t *testing.T) {
	xs := []float64{5, 1, 3}
	if Median(xs) != 3 || Median([]float64{4, 1, 2, 3}) != 2.5 || Median(nil) != 0 {
		t.Error("Median")
	}
	if xs[0] != 5 {
		t.Error("Median must not reorder its input")
	}
}

// TestPairedRatio times on a clock that only the timed functions move:
// base takes 2 units, other 6, except in round 2, where a neighbour's
// burst makes other take 60. The median of the rounds' ratios is 3, and
// the order alternates: base first in even rounds, other first in odd.
func TestPairedRatio(t *testing.T) {
	var clock time.Duration
	defer func(old func() time.Time) { now = old }(now)
	epoch := time.Unix(0, 0)
	now = func() time.Time { return epoch.Add(clock) }
	var order []string
	round := 0
	base := func() { clock += 2; order = append(order, "base") }
	other := func() {
		clock += 6
		if round == 2 {
			clock += 54
		}
		order = append(order, "other")
		round++
	}
	if r := PairedRatio(5, base, other); r != 3 {
		t.Errorf("PairedRatio of a 6-unit task (60 once) over a 2-unit task = %v, want the median ratio 3", r)
	}
	want := []string{"base", "other", "other", "base", "base", "other", "other", "base", "base", "other"}
	if !slices.Equal(order, want) {
		t.Errorf("PairedRatio ran %v, want %v: each round swaps which goes first", order, want)
	}
}

func TestBarMargin(t *testing.T) {
	cases := []struct {
		bar  Bar
		x    float64
		want float64
	}{
		{Bar{Cmp: AtLeast, Value: 60}, 69, 0.15},
		{Bar{Cmp: AtLeast, Value: 60}, 30, -0.5},
		{Bar{Cmp: AtMost, Value: 10}, 5, 0.5},
		{Bar{Cmp: AtMost, Value: 10}, 12, -0.2},
		{Bar{Cmp: AtMost, Value: 0}, 0, 0},
		{Bar{Cmp: AtMost, Value: 0}, 1, -1},
	}
	for _, tc := range cases {
		if got := tc.bar.Margin(tc.x); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v: Margin(%g) = %g, want %g", tc.bar, tc.x, got, tc.want)
		}
	}
}

func TestGatedAndNeeds(t *testing.T) {
	if (Bar{Cmp: AtLeast, Value: 60, Hardware: true}).Gated() {
		t.Error("a Hardware bar is gated by make test; it must only be reported there")
	}
	if !(Bar{Cmp: AtMost, Value: 0}).Gated() {
		t.Error("a plain bar is not gated")
	}
	if (Bar{Cmp: Info}).Gated() {
		t.Error("an Info figure is gated")
	}
	if !Has("") || Has("avx1024") {
		t.Error(`Has("") must be true and Has of an unknown feature false`)
	}
	defer func(old func() bool) { GPU = old }(GPU)
	for _, tc := range []struct {
		gpu  func() bool
		want bool
	}{{nil, false}, {func() bool { return false }, false}, {func() bool { return true }, true}} {
		GPU = tc.gpu
		if Has("gpu") != tc.want {
			t.Errorf(`Has("gpu") = %v with GPU %v, want %v: only the grader's GPU hook says there is one`, !tc.want, tc.gpu != nil, tc.want)
		}
	}
	for _, b := range Table {
		for _, bar := range b.Bars {
			if !slices.Contains([]string{"", "avx2", "avx512f", "avx512vnni", "gpu"}, bar.Needs) {
				t.Errorf("unit %d %s: Needs %q is not a feature Has knows", b.Unit, bar.Metric, bar.Needs)
			}
		}
	}
}
