package unit00

import (
	"fmt"
	"math"
)

// Close reports whether got is within atol + rtol·|want| of want.
//
// The test is asymmetric on purpose: want is the trusted value, so the
// relative part of the budget scales with it, not with the answer under test.
// NaN is close to nothing (not even NaN); an infinity is close only to the
// same infinity; +0 and −0 are equal.
func Close(got, want, atol, rtol float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return false
	}
	if math.IsInf(got, 0) || math.IsInf(want, 0) {
		// Inf−Inf is NaN, so infinities must be compared directly.
		return got == want
	}
	return math.Abs(got-want) <= atol+rtol*math.Abs(want)
}

// Report is the result of comparing a slice of results with expectations.
type Report struct {
	N      int     // elements compared
	Bad    int     // elements that are not Close
	Worst  int     // index of the element that used the largest share of its budget (lowest index on ties); -1 when N == 0
	Got    float64 // got[Worst]
	Want   float64 // want[Worst]
	AbsErr float64 // |Got − Want|; +Inf when the pair is NaN or mismatched infinities
	Budget float64 // AbsErr divided by the allowed error atol + rtol·|Want|: 1 means exactly at the limit, +Inf when nothing was allowed
}

// AllClose compares got with want element by element under Close and reports
// how many elements failed and which one was worst. Slices of different
// lengths, and a tolerance that is negative or NaN, are an error wrapping
// ErrInvalid.
func AllClose(got []float32, want []float64, atol, rtol float64) (Report, error) {
	if len(got) != len(want) {
		return Report{Worst: -1}, fmt.Errorf("AllClose: %d results for %d expected values: %w", len(got), len(want), ErrInvalid)
	}
	// A negative budget would make equal values "not close" and turn the
	// budget share negative; NaN would make everything not close. Both are
	// the caller's mistake, not a verdict on the results.
	if atol < 0 || rtol < 0 || math.IsNaN(atol) || math.IsNaN(rtol) {
		return Report{Worst: -1}, fmt.Errorf("AllClose: tolerances atol %g and rtol %g must be 0 or more: %w", atol, rtol, ErrInvalid)
	}
	r := Report{N: len(got), Worst: -1}
	for i := range got {
		g, w := float64(got[i]), want[i]
		if !Close(g, w, atol, rtol) {
			r.Bad++
		}
		err, used := budgetUsed(g, w, atol, rtol)
		if r.Worst < 0 || used > r.Budget {
			r.Worst, r.Got, r.Want, r.AbsErr, r.Budget = i, g, w, err, used
		}
	}
	return r, nil
}

// budgetUsed returns |got − want| and the share of the allowed error it uses.
func budgetUsed(got, want, atol, rtol float64) (absErr, used float64) {
	if Close(got, want, 0, 0) { // equal, including equal infinities
		return 0, 0
	}
	if math.IsNaN(got) || math.IsNaN(want) || math.IsInf(got, 0) || math.IsInf(want, 0) {
		return math.Inf(1), math.Inf(1)
	}
	absErr = math.Abs(got - want)
	allowed := atol + rtol*math.Abs(want) // never negative: AllClose checked
	if allowed == 0 {
		return absErr, math.Inf(1)
	}
	return absErr, absErr / allowed
}

// OK reports whether every element was close.
func (r Report) OK() bool { return r.Bad == 0 }

// String summarises the report in one line, for example
// "2 of 128 not close; worst [17]: got 0.5, want 0.25, |err| 0.25 (250% of budget)".
func (r Report) String() string {
	head := fmt.Sprintf("%d of %d not close", r.Bad, r.N)
	if r.Bad == 0 {
		head = fmt.Sprintf("all %d close", r.N)
	}
	if r.Worst < 0 {
		return head
	}
	return fmt.Sprintf("%s; worst [%d]: got %g, want %g, |err| %g (%.0f%% of budget)",
		head, r.Worst, r.Got, r.Want, r.AbsErr, 100*r.Budget)
}
