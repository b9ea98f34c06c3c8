package unit03

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// bigShapes cross the block sizes of a blocked product: more rows than a
// row block, more columns than fit a panel many times over, depths beyond
// one depth block.
var bigShapes = []shape{{150, 130, 257}, {5, 4100, 3}, {300, 2, 9}, {33, 65, 513}, {13, 4100, 600}}

func TestC3_2_MatMulIKJ(t *testing.T) {
	g := oracle.NewRand(33)
	for _, s := range append(shapes, bigShapes[0]) {
		c, a, b := operands(g, s, false, true)
		MatMulIKJ(c, a, b)
		checkC(t, fmt.Sprintf("MatMulIKJ %v", s), c, a, b, false)
	}
}

func TestC3_2_MatMulBlocked(t *testing.T) {
	g := oracle.NewRand(34)
	for _, s := range append(shapes, bigShapes...) {
		for _, padded := range []bool{false, true} {
			c, a, b := operands(g, s, false, padded)
			MatMulBlocked(c, a, b)
			checkC(t, fmt.Sprintf("MatMulBlocked %v (strided %v)", s, padded), c, a, b, false)
		}
	}
}

func TestC3_2_ProductChecks(t *testing.T) {
	checkProductPanics(t, product{"MatMulIKJ", false, MatMulIKJ}, product{"MatMulBlocked", false, MatMulBlocked})
}

// TestC3_2_Views multiplies blocks of larger matrices, across the block
// sizes, and products with a zero extent.
func TestC3_2_Views(t *testing.T) {
	g := oracle.NewRand(29)
	for _, p := range []product{{"MatMulIKJ", false, MatMulIKJ}, {"MatMulBlocked", false, MatMulBlocked}} {
		for _, s := range []shape{{1, 1, 1}, {7, 11, 13}, {33, 65, 513}, {150, 130, 257}} {
			c, a, b, parent := blockOperands(g, s, false)
			what := fmt.Sprintf("%s %v on blocks of larger matrices", p.name, s)
			p.f(c, a, b)
			checkC(t, what, c, a, b, false)
			checkParent(t, what, c, parent)
		}
		for _, s := range emptyShapes {
			c, a, b := operands(g, s, false, true)
			p.f(c, a, b)
			checkC(t, fmt.Sprintf("%s %v", p.name, s), c, a, b, false)
		}
	}
}
