// Package testmat holds the units' test helpers for unit03.Mat operands:
// matrices whose rows are padded to a wider stride holding a sentinel, so
// that code which reads or writes outside a view's columns shows, and the
// seeded inputs the tests draw. It is for tests only.
package testmat

import (
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// Sentinel fills the padding of Rand's matrices: no correct code reads or
// writes it.
const Sentinel = -12345.5

// Rand returns a rows×cols matrix of N(0, 1) values drawn from g, with a
// stride of cols+3 whose padding holds Sentinel: the operands are views,
// as a KV cache's heads are.
func Rand(g *oracle.Rand, rows, cols int) unit03.Mat {
	stride := cols + 3
	data := g.Normal(rows*stride, 0, 1)
	for i := range rows {
		for j := cols; j < stride; j++ {
			data[i*stride+j] = Sentinel
		}
	}
	return unit03.Mat{Rows: rows, Cols: cols, Stride: stride, Data: data}
}

// CheckPadding fails t on a write into m's padding.
func CheckPadding(t testing.TB, what string, m unit03.Mat) {
	t.Helper()
	for i := range m.Rows {
		for j := m.Cols; j < m.Stride && i*m.Stride+j < len(m.Data); j++ {
			if v := m.Data[i*m.Stride+j]; v != Sentinel {
				t.Fatalf("%s wrote %v into the padding at row %d, column %d: write only the view's Cols columns of each row", what, v, i, j)
			}
		}
	}
}

// Dense returns m's elements, row by row, without the padding.
func Dense(m unit03.Mat) []float32 {
	out := make([]float32, 0, m.Rows*m.Cols)
	for i := range m.Rows {
		out = append(out, m.Row(i)...)
	}
	return out
}

// Tokens returns n seeded token ids below vocab.
func Tokens(seed uint64, n, vocab int) []int {
	g := oracle.NewRand(seed)
	toks := make([]int, n)
	for i := range toks {
		toks[i] = g.Intn(vocab)
	}
	return toks
}
