package unit00

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	inf     = math.Inf(1)
	nan     = math.NaN()
	negZero = math.Copysign(0, -1)
	tiniest = math.SmallestNonzeroFloat64 // 4.9e-324, the smallest subnormal
)

func TestC0_1_Close(t *testing.T) {
	tests := []struct {
		name       string
		got, want  float64
		atol, rtol float64
		close      bool
		why        string
	}{
		{"equal", 1.5, 1.5, 0, 0, true, "equal values are close even with no tolerance"},
		{"within atol", 1.05, 1, 0.1, 0, true, "|1.05−1| = 0.05 ≤ atol 0.1"},
		{"at atol boundary", 1.5, 1, 0.5, 0, true, "the bound is inclusive: |err| ≤ atol + rtol·|want|"},
		{"outside atol", 1.2, 1, 0.1, 0, false, "|1.2−1| = 0.2 > atol 0.1"},
		{"within rtol", 1010, 1000, 0, 0.02, true, "|err| 10 ≤ rtol·|want| = 20"},
		{"outside rtol", 1030, 1000, 0, 0.02, false, "|err| 30 > rtol·|want| = 20"},
		{"atol and rtol add", 1.3, 1, 0.2, 0.2, true, "|err| 0.3 ≤ 0.2 + 0.2·1"},
		{"rtol scales with want, not got (1)", 1, 2, 0, 0.5, true, "budget 0.5·|want|=1 covers |1−2| = 1"},
		{"rtol scales with want, not got (2)", 2, 1, 0, 0.5, false, "budget 0.5·|want|=0.5 does not cover |2−1| = 1"},
		{"rtol uses |want| for negatives", -1010, -1000, 0, 0.02, true, "budget uses |want| = 1000"},
		{"NaN got", nan, 1, inf, inf, false, "NaN is never close, whatever the tolerance"},
		{"NaN want", 1, nan, 1, 1, false, "NaN is never close"},
		{"NaN NaN", nan, nan, 1, 1, false, "NaN is not even close to NaN"},
		{"+Inf +Inf", inf, inf, 0, 0, true, "an infinity is close to the same infinity (Inf−Inf is NaN: compare directly)"},
		{"-Inf -Inf", -inf, -inf, 0, 0, true, "an infinity is close to the same infinity"},
		{"+Inf -Inf", inf, -inf, 1, 1, false, "opposite infinities are never close"},
		{"+Inf huge", inf, math.MaxFloat64, 1, 1, false, "an infinity is close only to an infinity"},
		{"huge +Inf", math.MaxFloat64, inf, 1, 1, false, "an infinity is close only to an infinity"},
		{"+Inf 1, infinite atol", inf, 1, inf, 0, false, "an infinity is close only to the same infinity, whatever the tolerance (Inf ≤ Inf would say yes)"},
		{"-Inf 1, infinite atol", -inf, 1, inf, 0, false, "an infinity is close only to the same infinity, whatever the tolerance"},
		{"1 +Inf, rtol", 1, inf, 0, 1, false, "rtol·|+Inf| is +Inf, yet a finite value is not close to an infinity"},
		{"1 -Inf, rtol", 1, -inf, 0, 1, false, "rtol·|−Inf| is +Inf, yet a finite value is not close to an infinity"},
		{"+0 -0", 0, negZero, 0, 0, true, "+0 and −0 are equal"},
		{"-0 +0", negZero, 0, 0, 0, true, "+0 and −0 are equal"},
		{"subnormal vs 0, no atol", tiniest, 0, 0, 0.5, false, "with atol 0 nothing is close to 0 but 0"},
		{"subnormal vs 0, atol", tiniest, 0, 1e-300, 0, true, "atol covers a subnormal error"},
		{"subnormals relative", 3e-310, 4e-310, 0, 0.3, true, "subnormals compare like any number: |err| 1e-310 ≤ 0.3·4e-310"},
		{"subnormals relative tight", 3e-310, 4e-310, 0, 0.2, false, "|err| 1e-310 > 0.2·4e-310"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Close(tc.got, tc.want, tc.atol, tc.rtol); got != tc.close {
				t.Errorf("Close(got=%g, want=%g, atol=%g, rtol=%g) = %v, want %v: %s",
					tc.got, tc.want, tc.atol, tc.rtol, got, tc.close, tc.why)
			}
		})
	}
}

func TestC0_1_AllClose(t *testing.T) {
	f32 := func(xs ...float64) []float32 {
		out := make([]float32, len(xs))
		for i, x := range xs {
			out[i] = float32(x)
		}
		return out
	}
	tests := []struct {
		name       string
		got        []float32
		want       []float64
		atol, rtol float64
		report     Report
	}{
		{
			name: "all exact", got: f32(1, 2, 3), want: []float64{1, 2, 3}, atol: 0, rtol: 0,
			report: Report{N: 3, Bad: 0, Worst: 0, Got: 1, Want: 1, AbsErr: 0, Budget: 0},
		},
		{
			name: "one bad, worst is the largest share of budget", got: f32(1.25, 2, 3.5), want: []float64{1, 2, 3}, atol: 0.25, rtol: 0,
			report: Report{N: 3, Bad: 1, Worst: 2, Got: 3.5, Want: 3, AbsErr: 0.5, Budget: 2},
		},
		{
			// Element 0 has the larger absolute error but a larger budget too:
			// the worst element is the one closest to (or furthest past) its limit.
			name: "worst by budget, not by absolute error", got: f32(1100, 1.5), want: []float64{1000, 1}, atol: 0, rtol: 0.25,
			report: Report{N: 2, Bad: 1, Worst: 1, Got: 1.5, Want: 1, AbsErr: 0.5, Budget: 2},
		},
		{
			name: "ties go to the lowest index", got: f32(2, 3), want: []float64{1, 2}, atol: 2, rtol: 0,
			report: Report{N: 2, Bad: 0, Worst: 0, Got: 2, Want: 1, AbsErr: 1, Budget: 0.5},
		},
		{
			name: "NaN is worst and bad", got: f32(1, math.NaN(), 100), want: []float64{1, 2, 1}, atol: 1, rtol: 0,
			report: Report{N: 3, Bad: 2, Worst: 1, Got: nan, Want: 2, AbsErr: inf, Budget: inf},
		},
		{
			name: "equal infinities use no budget", got: f32(math.Inf(1), 1.5), want: []float64{inf, 1}, atol: 1, rtol: 0,
			report: Report{N: 2, Bad: 0, Worst: 1, Got: 1.5, Want: 1, AbsErr: 0.5, Budget: 0.5},
		},
		{
			name: "error with zero tolerance uses infinite budget", got: f32(0, 1), want: []float64{0, 0.5}, atol: 0, rtol: 0,
			report: Report{N: 2, Bad: 1, Worst: 1, Got: 1, Want: 0.5, AbsErr: 0.5, Budget: inf},
		},
		{
			name: "empty", got: nil, want: nil, atol: 0, rtol: 0,
			report: Report{N: 0, Bad: 0, Worst: -1},
		},
		{
			// A NaN on the expected side is as bad as one in the result.
			name: "NaN expected value is worst and bad", got: f32(1, 2), want: []float64{1, nan}, atol: 1, rtol: 0,
			report: Report{N: 2, Bad: 1, Worst: 1, Got: 2, Want: nan, AbsErr: inf, Budget: inf},
		},
		{
			// |5 − Inf| is Inf and so is rtol·|Inf|: Inf/Inf is NaN, so a
			// finite result against an infinity must be caught before dividing.
			name: "finite result for an infinite expectation", got: f32(1, 5), want: []float64{1, inf}, atol: 0, rtol: 0.5,
			report: Report{N: 2, Bad: 1, Worst: 1, Got: 5, Want: inf, AbsErr: inf, Budget: inf},
		},
		{
			name: "infinite result for a finite expectation", got: f32(1, math.Inf(-1)), want: []float64{1, 3}, atol: 1, rtol: 1,
			report: Report{N: 2, Bad: 1, Worst: 1, Got: -inf, Want: 3, AbsErr: inf, Budget: inf},
		},
		{
			// With an infinite allowance, Inf/Inf would make the share NaN:
			// infinities must be settled before dividing, on either side.
			name: "+Inf result, infinite tolerance", got: f32(1, math.Inf(1)), want: []float64{1, 3}, atol: inf, rtol: 0,
			report: Report{N: 2, Bad: 1, Worst: 1, Got: inf, Want: 3, AbsErr: inf, Budget: inf},
		},
		{
			name: "-Inf result, infinite tolerance", got: f32(1, math.Inf(-1)), want: []float64{1, 3}, atol: inf, rtol: 0,
			report: Report{N: 2, Bad: 1, Worst: 1, Got: -inf, Want: 3, AbsErr: inf, Budget: inf},
		},
		{
			name: "finite result for a −Inf expectation", got: f32(1, 5), want: []float64{1, -inf}, atol: 0, rtol: 0.5,
			report: Report{N: 2, Bad: 1, Worst: 1, Got: 5, Want: -inf, AbsErr: inf, Budget: inf},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := AllClose(tc.got, tc.want, tc.atol, tc.rtol)
			if err != nil {
				t.Fatalf("AllClose returned error %v for equal-length slices", err)
			}
			if !sameReport(r, tc.report) {
				t.Errorf("AllClose(got=%v, want=%v, atol=%g, rtol=%g)\n got report %+v\nwant report %+v",
					tc.got, tc.want, tc.atol, tc.rtol, r, tc.report)
			}
			if r.OK() != (tc.report.Bad == 0) {
				t.Errorf("Report{Bad: %d}.OK() = %v, want %v", r.Bad, r.OK(), tc.report.Bad == 0)
			}
		})
	}
	t.Run("length mismatch", func(t *testing.T) {
		// Both directions: a check that only catches extra results lets a
		// short result slice pass as a perfect match of its prefix.
		for _, tc := range []struct {
			got  []float32
			want []float64
		}{
			{[]float32{1, 2}, []float64{1}},
			{[]float32{1}, []float64{1, 2}},
			{nil, []float64{0}},
			{[]float32{0}, nil},
		} {
			r, err := AllClose(tc.got, tc.want, 1, 1)
			require.ErrorIs(t, err, ErrInvalid, "AllClose with %d results for %d expected values must be an error wrapping ErrInvalid", len(tc.got), len(tc.want))
			for _, n := range []int{len(tc.got), len(tc.want)} {
				require.Contains(t, err.Error(), fmt.Sprint(n), "the error of AllClose with %d results for %d expected values must give both lengths", len(tc.got), len(tc.want))
			}
			if r.N != 0 || r.Worst != -1 || r.Bad != 0 {
				t.Errorf("AllClose with %d results for %d expected values returned a report with N %d, Bad %d, Worst %d alongside its error; want nothing compared: N 0, Bad 0, Worst −1 (as for an empty comparison), so no caller mistakes it for a result",
					len(tc.got), len(tc.want), r.N, r.Bad, r.Worst)
			}
		}
	})
	t.Run("bad tolerance", func(t *testing.T) {
		// Each tolerance alone: a check of atol only lets a negative rtol
		// through, and "< 0" alone lets NaN through (every comparison with
		// NaN is false).
		nan := math.NaN()
		for _, tc := range []struct{ atol, rtol float64 }{
			{-1, 0}, {0, -1}, {-1e-300, 1}, {1, -0.5}, {nan, 0}, {0, nan},
		} {
			r, err := AllClose([]float32{1, 2}, []float64{1, 2}, tc.atol, tc.rtol)
			require.ErrorIs(t, err, ErrInvalid, "AllClose with atol %g and rtol %g must be an error wrapping ErrInvalid: a tolerance must be 0 or more", tc.atol, tc.rtol)
			for _, v := range []float64{tc.atol, tc.rtol} {
				require.Contains(t, err.Error(), fmt.Sprint(v), "the error of AllClose with atol %g and rtol %g must give both tolerances", tc.atol, tc.rtol)
			}
			if r.N != 0 || r.Worst != -1 || r.Bad != 0 {
				t.Errorf("AllClose with atol %g and rtol %g returned a report with N %d, Bad %d, Worst %d alongside its error; want nothing compared: N 0, Bad 0, Worst −1",
					tc.atol, tc.rtol, r.N, r.Bad, r.Worst)
			}
		}
		// Zero and infinite tolerances are valid.
		for _, tol := range []float64{0, math.Inf(1)} {
			if _, err := AllClose([]float32{1}, []float64{1}, tol, tol); err != nil {
				t.Errorf("AllClose with atol and rtol %g returned error %v; 0 and +Inf are valid tolerances", tol, err)
			}
		}
	})
}

// sameReport compares reports field by field, treating NaN as equal to NaN.
func sameReport(a, b Report) bool {
	eq := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	return a.N == b.N && a.Bad == b.Bad && a.Worst == b.Worst &&
		eq(a.Got, b.Got) && eq(a.Want, b.Want) && eq(a.AbsErr, b.AbsErr) && eq(a.Budget, b.Budget)
}

func TestC0_1_ReportString(t *testing.T) {
	r := Report{N: 128, Bad: 2, Worst: 17, Got: 0.5, Want: 0.25, AbsErr: 0.25, Budget: 2.5}
	want := "2 of 128 not close; worst [17]: got 0.5, want 0.25, |err| 0.25 (250% of budget)"
	if got := r.String(); got != want {
		t.Errorf("Report.String()\n got %q\nwant %q", got, want)
	}
	ok := Report{N: 4, Bad: 0, Worst: 3, Got: 1, Want: 1, AbsErr: 0.001, Budget: 0.1}
	if got := ok.String(); !strings.HasPrefix(got, "all 4 close") {
		t.Errorf("Report.String() of a passing report = %q, want it to start with %q", got, "all 4 close")
	}
	// Element 0 can be the worst: only Worst −1 leaves the worst part out.
	first := Report{N: 3, Bad: 1, Worst: 0, Got: 2, Want: 1, AbsErr: 1, Budget: 2}
	if got, want := first.String(), "1 of 3 not close; worst [0]: got 2, want 1, |err| 1 (200% of budget)"; got != want {
		t.Errorf("Report.String() with Worst 0\n got %q\nwant %q (index 0 is an element like any other)", got, want)
	}
	if got := (Report{Worst: -1}).String(); got != "all 0 close" {
		t.Errorf("Report.String() of an empty report = %q, want %q", got, "all 0 close")
	}
}
