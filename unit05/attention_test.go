package unit05

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// attentionTol: each output is a convex combination of values (|v| ≲ 4)
// with weights from a float32 softmax of float32 dot products.
var attentionTol = oracle.Tol{Atol: 2e-6, Rtol: 2e-5}

func TestC5_3_Attention(t *testing.T) {
	g := oracle.NewRand(55)
	cases := []struct {
		heads, kvHeads, hd, T, pos0 int
	}{
		{1, 1, 4, 1, 0},   // one query, one key: the output is v
		{4, 4, 8, 6, 0},   // MHA
		{8, 2, 8, 6, 0},   // GQA, groups of 4
		{6, 3, 4, 5, 0},   // GQA, groups of 2
		{4, 1, 16, 7, 0},  // MQA
		{8, 2, 8, 1, 11},  // one new token after 11 cached ones (a decode step)
		{4, 2, 16, 4, 20}, // four new tokens after 20 cached ones
		{2, 2, 64, 33, 0}, // longer rows
		{2, 1, 6, 5, 3},   // a head width that is not a multiple of 4
		{3, 3, 7, 4, 0},   // an odd head width
		{1, 1, 1, 3, 2},   // heads one wide
		{4, 2, 8, 70, 0},  // more rows than a block of the forward pass (64)
		{2, 1, 8, 3, 90},  // a long context before a few rows
	}
	for _, c := range cases {
		n := c.pos0 + c.T
		// Scratch of exactly pos0+T floats, no more may be needed; and of
		// T·(pos0+T) and more, room for all of a head's scores at once:
		// what lies past the first pos0+T floats is the caller's, to be
		// used or ignored, and must not change the result.
		for _, room := range []int{n, c.T * n, c.T*n + 5} {
			what := fmt.Sprintf("Attention(heads %d, kvHeads %d, head width %d, %d rows from position %d, %d floats of scores)", c.heads, c.kvHeads, c.hd, c.T, c.pos0, room)
			q := randMat(g, c.T, c.heads*c.hd)
			k := randMat(g, n+2, c.kvHeads*c.hd) // rows beyond n: later positions, never to be read
			v := randMat(g, n+2, c.kvHeads*c.hd)
			out := randMat(g, c.T, c.heads*c.hd) // garbage to be overwritten
			scores := g.Normal(room, 0, 1)       // garbage too
			Attention(out, q, k, v, c.heads, c.kvHeads, c.pos0, scores)
			want := oracle.Attention(oracle.Float64s(dense(q)), oracle.Float64s(dense(k.Block(0, n, 0, k.Cols))), oracle.Float64s(dense(v.Block(0, n, 0, v.Cols))),
				c.T, c.pos0, c.heads, c.kvHeads, c.hd)
			oracle.AssertCloseShape(t, what, dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
			checkPadding(t, what, out)
		}
	}
}

// TestC5_3_Causal changes the keys and values of positions after a row's
// own: its output must not move, not by one bit.
func TestC5_3_Causal(t *testing.T) {
	g := oracle.NewRand(56)
	const heads, kvHeads, hd, T = 4, 2, 8, 6
	q := randMat(g, T, heads*hd)
	k, v := randMat(g, T, kvHeads*hd), randMat(g, T, kvHeads*hd)
	// With scratch for one row's scores, and for all of them at once.
	for _, room := range []int{T, T * T} {
		out := unit03.NewMat(T, heads*hd)
		Attention(out, q, k, v, heads, kvHeads, 0, make([]float32, room))
		for p := 1; p < T; p++ {
			k2, v2 := randMat(g, T, kvHeads*hd), randMat(g, T, kvHeads*hd)
			for i := range p { // keep positions before p
				copy(k2.Row(i), k.Row(i))
				copy(v2.Row(i), v.Row(i))
			}
			out2 := unit03.NewMat(T, heads*hd)
			Attention(out2, q, k2, v2, heads, kvHeads, 0, make([]float32, room))
			for i := range p { // rows before p see nothing that changed
				for j := range heads * hd {
					if out2.At(i, j) != out.At(i, j) {
						t.Fatalf("Attention (%d floats of scores): row %d changed when the keys and values of positions %d and later changed; a token may attend only to itself and earlier ones (mask off by one?)", room, i, p)
					}
				}
			}
			changed := false // row p sees position p, which changed
			for j := range heads * hd {
				changed = changed || out2.At(p, j) != out.At(p, j)
			}
			if !changed {
				t.Fatalf("Attention (%d floats of scores): row %d did not change when its own key and value changed; a token must attend to itself", room, p)
			}
		}
	}
	out := unit03.NewMat(T, heads*hd)
	for _, bad := range []struct {
		what string
		f    func()
	}{
		{"3 heads, which do not divide q's 32 columns", func() { Attention(out, q, k, v, 3, 1, 0, make([]float32, T)) }},
		{"4 heads over 3 kv heads", func() { Attention(out, q, k, v, heads, 3, 0, make([]float32, T)) }},
		{"0 heads", func() { Attention(out, q, k, v, 0, kvHeads, 0, make([]float32, T)) }},
		{"0 kv heads", func() { Attention(out, q, k, v, heads, 0, 0, make([]float32, T)) }},
		{"−4 heads over −2 kv heads", func() { Attention(out, q, k, v, -4, -2, 0, make([]float32, T)) }},
		{"pos0 = 1, so k needs a row for position 6 (it has 6 rows)", func() { Attention(out, q, k, randMat(g, T+1, kvHeads*hd), heads, kvHeads, 1, make([]float32, T+1)) }},
		{"pos0 = −1", func() { Attention(out, q, k, v, heads, kvHeads, -1, make([]float32, T)) }},
		{"scores of 5 floats for 6 positions", func() { Attention(out, q, k, v, heads, kvHeads, 0, make([]float32, T-1)) }},
		{"v of 5 rows for 6 positions", func() { Attention(out, q, k, randMat(g, T-1, kvHeads*hd), heads, kvHeads, 0, make([]float32, T)) }},
		{"k 8 wide, not kvHeads·hd = 16", func() { Attention(out, q, randMat(g, T, hd), v, heads, kvHeads, 0, make([]float32, T)) }},
		{"v 8 wide, not kvHeads·hd = 16", func() { Attention(out, q, k, randMat(g, T, hd), heads, kvHeads, 0, make([]float32, T)) }},
		{"out of 5 rows for 6 queries", func() { Attention(unit03.NewMat(T-1, heads*hd), q, k, v, heads, kvHeads, 0, make([]float32, T)) }},
		{"out 24 wide, q 32", func() { Attention(unit03.NewMat(T, 24), q, k, v, heads, kvHeads, 0, make([]float32, T)) }},
	} {
		mustPanic(t, "Attention with "+bad.what, bad.f)
	}
}
