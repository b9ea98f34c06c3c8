package oracle

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Tol is an elementwise tolerance: got is close to want when
// |got − want| ≤ Atol + Rtol·|want|.
type Tol struct {
	Atol, Rtol float64
}

func (t Tol) String() string { return fmt.Sprintf("atol %.3g, rtol %.3g", t.Atol, t.Rtol) }

// budget returns the error allowed at want.
func (t Tol) budget(want float64) float64 { return t.Atol + t.Rtol*math.Abs(want) }

// Diff is the outcome of comparing a float32 result with a float64 expectation.
type Diff struct {
	N      int     // elements compared
	Bad    int     // elements outside the tolerance
	Worst  int     // index of the element that used the largest share of its budget, -1 if none
	Got    float64 // got[Worst]
	Want   float64 // want[Worst]
	Err    float64 // |Got − Want|, +Inf when the two are not comparable (NaN, different infinities)
	Budget float64 // Err / allowed error at Worst: 1 is exactly at the limit
	Tol    Tol

	LenGot, LenWant int // differ only when the lengths mismatch
}

// OK reports whether every element was within tolerance and the lengths matched.
func (d Diff) OK() bool { return d.Bad == 0 && d.LenGot == d.LenWant }

// elemErr returns the error of one element, the share of its budget it
// uses, and whether it is outside the tolerance. NaN is never close to
// anything; an infinity is close only to the same infinity. bad compares the
// error with the budget directly (not the share with 1), so it agrees with
// the definition to the last bit.
func elemErr(got, want float64, tol Tol) (err, used float64, bad bool) {
	switch {
	case math.IsNaN(got) || math.IsNaN(want):
		return math.Inf(1), math.Inf(1), true
	case math.IsInf(got, 0) || math.IsInf(want, 0):
		if got == want {
			return 0, 0, false
		}
		return math.Inf(1), math.Inf(1), true
	}
	err = math.Abs(got - want)
	b := tol.budget(want)
	switch {
	case err == 0:
		return 0, 0, false
	case b == 0:
		return err, math.Inf(1), true
	}
	return err, err / b, err > b
}

// Compare compares got with want element by element.
func Compare(got []float32, want []float64, tol Tol) Diff {
	d := Diff{Worst: -1, Tol: tol, LenGot: len(got), LenWant: len(want)}
	n := min(len(got), len(want))
	d.N = n
	for i := 0; i < n; i++ {
		err, used, bad := elemErr(float64(got[i]), want[i], tol)
		if bad {
			d.Bad++
		}
		if d.Worst < 0 || used > d.Budget {
			d.Worst, d.Got, d.Want, d.Err, d.Budget = i, float64(got[i]), want[i], err, used
		}
	}
	return d
}

// String describes the comparison in one or two lines. shape, if not nil,
// turns the worst element's flat index into a multi-index.
func (d Diff) format(shape []int) string {
	var b strings.Builder
	if d.LenGot != d.LenWant {
		fmt.Fprintf(&b, "length %d, want %d; ", d.LenGot, d.LenWant)
	}
	if d.Bad == 0 {
		fmt.Fprintf(&b, "all %d elements within tolerance (%v)", d.N, d.Tol)
	} else {
		fmt.Fprintf(&b, "%d of %d elements outside tolerance (%v)", d.Bad, d.N, d.Tol)
	}
	if d.Worst >= 0 {
		fmt.Fprintf(&b, "\n\tworst at %s: got %.9g, want %.12g, |err| %.3g = %s of its budget %.3g",
			FormatIndex(d.Worst, shape), d.Got, d.Want, d.Err, percent(d.Budget), d.Tol.budget(d.Want))
	}
	return b.String()
}

func (d Diff) String() string { return d.format(nil) }

func percent(x float64) string {
	if math.IsInf(x, 1) {
		return "∞%"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// FormatIndex writes flat index i as a multi-index of shape ("[1 2 3]"), or
// as "[i]" when shape is nil.
func FormatIndex(i int, shape []int) string {
	if len(shape) == 0 {
		return fmt.Sprintf("[%d]", i)
	}
	idx := Unravel(i, shape)
	return strings.ReplaceAll(fmt.Sprint(idx), " ", ",")
}

// Unravel turns flat row-major index i into a multi-index of shape.
func Unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		if shape[a] > 0 {
			idx[a] = i % shape[a]
			i /= shape[a]
		}
	}
	return idx
}

// AssertClose fails t, with a message naming the worst element, when got is
// not within tol of want. what names the quantity ("Softmax row 3"). It
// returns whether the check passed; with -v it logs how much of the budget the
// worst element used, so a learner sees how close to the edge they are.
func AssertClose(t testing.TB, what string, got []float32, want []float64, tol Tol) bool {
	t.Helper()
	return AssertCloseShape(t, what, got, want, nil, tol)
}

// AssertCloseShape is AssertClose for data of the given row-major shape: the
// message gives the worst element as a multi-index.
func AssertCloseShape(t testing.TB, what string, got []float32, want []float64, shape []int, tol Tol) bool {
	t.Helper()
	d := Compare(got, want, tol)
	if !d.OK() {
		t.Errorf("%s: %s", what, d.format(shape))
		return false
	}
	if d.Worst >= 0 && testing.Verbose() {
		t.Logf("%s: worst element used %s of its budget", what, percent(d.Budget))
	}
	return true
}

// Float64s widens a float32 slice.
func Float64s(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}
