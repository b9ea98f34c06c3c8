package unit03

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
)

func TestC3_1_MatMulNaive(t *testing.T) {
	g := oracle.NewRand(31)
	for _, s := range shapes {
		for _, padded := range []bool{false, true} {
			c, a, b := operands(g, s, false, padded)
			MatMulNaive(c, a, b)
			checkC(t, fmt.Sprintf("MatMulNaive %v (strided %v)", s, padded), c, a, b, false)
		}
	}
}

func TestC3_1_MatMulNaiveT(t *testing.T) {
	g := oracle.NewRand(32)
	for _, s := range shapes {
		for _, padded := range []bool{false, true} {
			c, a, bt := operands(g, s, true, padded)
			MatMulNaiveT(c, a, bt)
			checkC(t, fmt.Sprintf("MatMulNaiveT %v (strided %v)", s, padded), c, a, bt, true)
		}
	}
}

func TestC3_1_ShapeChecks(t *testing.T) {
	a, b := NewMat(2, 3), NewMat(4, 5)
	if _, panicked := oracle.Panics(func() { MatMulNaive(NewMat(2, 5), a, b) }); !panicked {
		t.Errorf("MatMulNaive of a 2×3 by a 4×5 did not panic: the inner dimensions must agree")
	}
	if _, panicked := oracle.Panics(func() { MatMulNaive(NewMat(3, 5), NewMat(2, 4), b) }); !panicked {
		t.Errorf("MatMulNaive into a C of the wrong shape did not panic")
	}
	if _, panicked := oracle.Panics(func() { MatMulNaiveT(NewMat(2, 4), a, NewMat(4, 5)) }); !panicked {
		t.Errorf("MatMulNaiveT with B of 4×5 for an A of 2×3 did not panic: transposed B is N×K, here 4×3")
	}
}

func TestC3_1_ProductChecks(t *testing.T) {
	checkProductPanics(t, product{"MatMulNaive", false, MatMulNaive}, product{"MatMulNaiveT", true, MatMulNaiveT})
}

// TestC3_1_Views multiplies blocks of larger matrices (an offset, a stride
// above the width, data that ends at the last element) and products with a
// zero extent.
func TestC3_1_Views(t *testing.T) {
	g := oracle.NewRand(30)
	for _, p := range []product{{"MatMulNaive", false, MatMulNaive}, {"MatMulNaiveT", true, MatMulNaiveT}} {
		for _, s := range []shape{{1, 1, 1}, {7, 11, 13}, {17, 19, 23}} {
			c, a, b, parent := blockOperands(g, s, p.transB)
			what := fmt.Sprintf("%s %v on blocks of larger matrices", p.name, s)
			p.f(c, a, b)
			checkC(t, what, c, a, b, p.transB)
			checkParent(t, what, c, parent)
		}
		for _, s := range emptyShapes {
			c, a, b := operands(g, s, p.transB, true)
			p.f(c, a, b)
			checkC(t, fmt.Sprintf("%s %v", p.name, s), c, a, b, p.transB)
		}
	}
}
