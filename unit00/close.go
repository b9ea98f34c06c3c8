package unit00

// Close reports whether got is within atol + rtol·|want| of want.
//
// The test is asymmetric on purpose: want is the trusted value, so the
// relative part of the budget scales with it, not with the answer under test.
// NaN is close to nothing (not even NaN); an infinity is close only to the
// same infinity; +0 and −0 are equal.
func Close(got, want, atol, rtol float64) bool {
	panic("TODO(0.1): write Close, see docs/unit00.md")
}

// Report is the result of comparing a slice of results with expectations.
type Report struct {
	N      int     // elements compared
	Bad    int     // elements that are not Close
	Worst  int     // index of the element that used the largest share of its budget (lowest index on ties); -1 when N == 0
	Got    float64 // got[Worst]
	Want   float64 // want[Worst]
	AbsErr float64 // |Got − Want|; +Inf when either is NaN or an infinity the other does not equal (a finite value against an infinity too)
	Budget float64 // AbsErr divided by the allowed error atol + rtol·|Want|: 1 means exactly at the limit; +Inf when AbsErr is, or when nothing was allowed
}

// AllClose compares got with want element by element under Close and reports
// how many elements failed and which one was worst. Slices of different
// lengths (either one the longer) are an error wrapping ErrInvalid that gives
// both lengths, returned with a report of nothing compared (N 0, Worst −1); so
// is a tolerance (atol or rtol) that is negative or NaN, and its error names
// the tolerances.
func AllClose(got []float32, want []float64, atol, rtol float64) (Report, error) {
	panic("TODO(0.1): write AllClose, see docs/unit00.md")
}

// OK reports whether every element was close.
func (r Report) OK() bool {
	panic("TODO(0.1): write Report.OK, see docs/unit00.md")
}

// String summarises the report in one line, for example
// "2 of 128 not close; worst [17]: got 0.5, want 0.25, |err| 0.25 (250% of budget)".
func (r Report) String() string {
	panic("TODO(0.1): write Report.String, see docs/unit00.md")
}
