package unit02

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// TestC2_1_BinaryErrorEdges checks what comes back beside each error of
// Binary and BinaryInto: the zero Tensor (as Go functions return zero
// values beside an error), and a message that says what is wrong. Operands
// that do not broadcast must be reported with BroadcastShape's own error
// (returned or wrapped), which names the axis and the extents that clash,
// not as a destination of the wrong shape; a result too large to allocate
// must come back with unit01.Empty's error, not a panic.
func TestC2_1_BinaryErrorEdges(t *testing.T) {
	// Operands that do not broadcast, through Binary.
	a, b := tensorOf(t, counting(6), 2, 3), tensorOf(t, counting(2), 2)
	var got unit01.Tensor
	err := noPanic(t, "Binary(Add, [2 3], [2])", func() (err error) { got, err = Binary(Add, a, b); return err })
	require.ErrorIs(t, err, unit00.ErrInvalid, "Binary(Add, [2 3], [2])")
	if got != (unit01.Tensor{}) {
		t.Errorf("Binary(Add, [2 3], [2]) returned a tensor of shape %v beside its error; return the zero unit01.Tensor, as Go functions return zero values beside an error", got.Shape())
	}
	_, bsErr := BroadcastShape(a.Shape(), b.Shape())
	require.Error(t, bsErr, "BroadcastShape([2 3], [2])")
	if !strings.Contains(err.Error(), bsErr.Error()) {
		t.Errorf("Binary(Add, [2 3], [2]) error %q does not carry BroadcastShape's error %q: return (or wrap) it, it says which axis clashes", err, bsErr)
	}

	// The same operands into destinations of several shapes: the operands
	// are the problem, whatever dst is.
	for _, dims := range [][]int{{2, 3}, {2}, {}} {
		dst := tensorOf(t, make([]float32, shapeNumel(dims)), dims...)
		what := fmt.Sprintf("BinaryInto(Add, dst %v, [2 3], [2])", dims)
		err := noPanic(t, what, func() error { return BinaryInto(Add, dst, a, b) })
		require.ErrorIs(t, err, unit00.ErrInvalid, what)
		if !strings.Contains(err.Error(), bsErr.Error()) {
			t.Errorf("%s error %q does not carry BroadcastShape's error %q: check that the operands broadcast before you compare dst's shape, and return (or wrap) BroadcastShape's error", what, err, bsErr)
		}
	}

	// Operands that broadcast into a destination of another shape: the
	// message names both the destination's shape and the one wanted.
	dst := tensorOf(t, make([]float32, 2), 2, 1)
	what := "BinaryInto(Add, dst [2 1], [2 3], [3])"
	err = noPanic(t, what, func() error { return BinaryInto(Add, dst, a, tensorOf(t, counting(3), 3)) })
	require.ErrorIs(t, err, unit00.ErrInvalid, what)
	for _, s := range []string{"[2 1]", "[2 3]"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s error %q must name the destination's shape [2 1] and the broadcast shape [2 3]; %s is missing", what, err, s)
		}
	}

	// A broadcast result of MaxInt/4 + 1 float32s has more bytes than an int
	// counts: a valid shape (an expanded scalar has it, at no cost), but no
	// tensor can hold it. Binary must return Empty's error.
	huge := math.MaxInt/4 + 1
	big, err := tensorOf(t, []float32{2}).Expand(unit01.MustShape(huge))
	require.NoError(t, err, "Expand a scalar to [MaxInt/4+1]")
	what = fmt.Sprintf("Binary(Add, [1], a scalar expanded to [%d])", huge)
	err = noPanic(t, what, func() (err error) { got, err = Binary(Add, tensorOf(t, []float32{1}, 1), big); return err })
	require.ErrorIs(t, err, unit00.ErrInvalid, what)
	if got != (unit01.Tensor{}) {
		t.Errorf("%s returned a tensor of shape %v beside its error; return the zero unit01.Tensor", what, got.Shape())
	}
	_, emptyErr := unit01.Empty(unit01.F32, unit01.MustShape(huge))
	require.Error(t, emptyErr, "unit01.Empty(F32, [MaxInt/4+1])")
	if !strings.Contains(err.Error(), emptyErr.Error()) {
		t.Errorf("%s error %q does not carry unit01.Empty's error %q: the result cannot be allocated, so return (or wrap) Empty's error instead of going on", what, err, emptyErr)
	}
}

// shapeNumel is the product of dims, 1 for none.
func shapeNumel(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}
