package unit08

import (
	"errors"
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

func TestC8_2_New(t *testing.T) {
	for _, c := range [][4]int{{4, 4, 16, 1}, {32, 4, 64, 2}, {64, 1, 8, 3}, {3, 3, 10, MaxThreads}, {2, 1, 1, 1}, {1, 1, 8, 1}} {
		if f, err := New(c[0], c[1], c[2], c[3]); err != nil || f == nil {
			t.Errorf("New(%d, %d, %d, %d) = %v, %v; want a Flash", c[0], c[1], c[2], c[3], f, err)
		}
	}
	for _, c := range []struct {
		what string
		args [4]int
	}{
		{"no heads", [4]int{0, 1, 8, 1}},
		{"no KV heads", [4]int{4, 0, 8, 1}},
		{"negative KV heads", [4]int{4, -2, 8, 1}},
		{"a head width of 0", [4]int{4, 2, 0, 1}},
		{"a negative head width", [4]int{4, 2, -8, 1}},
		{"no threads", [4]int{4, 2, 8, 0}},
		{"heads not a multiple of KV heads", [4]int{6, 4, 8, 1}},
		{"more KV heads than heads", [4]int{2, 4, 8, 1}},
		{"one thread more than MaxThreads", [4]int{4, 2, 8, MaxThreads + 1}},
	} {
		a := c.args
		f, err := New(a[0], a[1], a[2], a[3])
		if f != nil || !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("New(%d, %d, %d, %d), %s: %v, %v; want nil and an error wrapping unit00.ErrInvalid", a[0], a[1], a[2], a[3], c.what, f, err)
		}
	}
}

// prefillProblems cover MHA, GQA and MQA, groups larger than TileQueries,
// odd head widths (1, and 80: more than one block of 64 columns),
// prompts of one tile and of many, and keys that span several blocks of
// TileKeys (pos0 + T up to 330). Head widths of 1, 17 and 30 with more
// than 16 keys: no whole 16 of dimensions, one and one over, and a
// multiple of 15 (the fast roads take whole 16s only).
var prefillProblems = []problem{
	{4, 4, 16, 2, 0}, {4, 4, 16, 33, 0}, {8, 2, 8, 130, 0}, {8, 2, 8, 5, 127},
	{4, 1, 16, 64, 200}, {6, 2, 6, 40, 90}, {3, 3, 10, 7, 1}, {64, 1, 8, 3, 129},
	{32, 4, 64, 9, 256}, {2, 1, 4, 150, 180}, {4, 2, 80, 6, 70}, {2, 1, 1, 7, 3},
	{2, 1, 1, 30, 20}, {4, 2, 17, 20, 40}, {2, 1, 30, 24, 20}, {2, 1, 16, 15, 0},
}

func TestC8_2_Prefill(t *testing.T) {
	ps, done := pools()
	defer done()
	for i, c := range prefillProblems {
		q, k, v, want := operands(c, uint64(100+i))
		for _, p := range ps {
			f := newFlash(t, c.heads, c.kvHeads, c.hd, 3)
			out := nanMat(c.T, c.heads*c.hd) // what out held before must not matter
			f.Prefill(p, out, q, k, v, c.heads, c.kvHeads, c.pos0)
			what := fmt.Sprintf("Prefill, %v, %d threads", c, p.Threads())
			oracle.AssertCloseShape(t, what, dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
			checkPadding(t, what, out)
		}
	}
}

// TestC8_2_FarScores: scores 200 apart in different blocks of keys. The
// running maximum must be the larger of the old one and the block's: a
// block that took only its own maximum would rescale what came before by
// e^200, which is +Inf in float32.
func TestC8_2_FarScores(t *testing.T) {
	c := problem{heads: 2, kvHeads: 1, hd: 16, T: 3, pos0: 271}
	S := c.pos0 + c.T
	g := oracle.NewRand(77)
	q := unit03.NewMat(c.T, c.heads*c.hd)
	k, v := unit03.NewMat(S, c.hd), randMat(g, S, c.hd)
	for t := range c.T {
		q.Set(t, 0, 1)     // head 0: score = key[0]/4
		q.Set(t, c.hd, -1) // head 1: score = −key[0]/4
	}
	for j := range S {
		k.Set(j, 0, -400) // score −100 for head 0, +100 for head 1 …
	}
	k.Set(0, 0, 400) // … but key 0: +100 for head 0, then a whole block of −100
	want := oracle.Attention(oracle.Float64s(dense(q)), oracle.Float64s(dense(k)), oracle.Float64s(dense(v)), c.T, c.pos0, c.heads, c.kvHeads, c.hd)
	f := newFlash(t, c.heads, c.kvHeads, c.hd, 1)
	out := unit03.NewMat(c.T, c.heads*c.hd)
	f.Prefill(nil, out, q, k, v, c.heads, c.kvHeads, c.pos0)
	oracle.AssertCloseShape(t, fmt.Sprintf("Prefill, %v, scores of +100 in key 0 and −100 in every other (head 1: the opposite): the running maximum must never fall", c), dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
}

// TestC8_2_ExactOperands: k and v of exactly pos0+T rows, with nothing
// after them in memory, for lengths that are no multiple of 4 or of
// TileKeys: nothing may be read past the last position.
func TestC8_2_ExactOperands(t *testing.T) {
	for i, c := range []problem{{4, 2, 8, 3, 130}, {8, 2, 16, 7, 0}, {2, 2, 64, 5, 254}} {
		q, k, v, want := operands(c, uint64(160+i))
		S := c.pos0 + c.T
		exact := func(m unit03.Mat) unit03.Mat {
			e := unit03.MatOf(S, m.Cols, make([]float32, S*m.Cols))
			for r := range S {
				copy(e.Row(r), m.Row(r))
			}
			return e
		}
		f := newFlash(t, c.heads, c.kvHeads, c.hd, 1)
		out := unit03.NewMat(c.T, c.heads*c.hd)
		if v, panicked := oracle.Panics(func() { f.Prefill(nil, out, q, exact(k), exact(v), c.heads, c.kvHeads, c.pos0) }); panicked {
			t.Fatalf("Prefill, %v, on k and v of exactly %d rows panicked: %v", c, S, v)
		}
		oracle.AssertCloseShape(t, fmt.Sprintf("Prefill, %v, k and v of exactly %d rows", c, S), dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
	}
}

// TestC8_2_Causal: row t must see position pos0+t and nothing after it.
// Changing the key and value of position pos0+t changes row t (and later
// rows) and no earlier one.
func TestC8_2_Causal(t *testing.T) {
	c := problem{heads: 4, kvHeads: 2, hd: 8, T: 40, pos0: 100}
	q, k, v, _ := operands(c, 110)
	f := newFlash(t, c.heads, c.kvHeads, c.hd, 1)
	base := unit03.NewMat(c.T, c.heads*c.hd)
	f.Prefill(nil, base, q, k, v, c.heads, c.kvHeads, c.pos0)
	for _, row := range []int{0, 1, 17, c.T - 1} {
		pos := c.pos0 + row
		k2, v2 := randMat(oracle.NewRand(111), k.Rows, k.Cols), randMat(oracle.NewRand(112), v.Rows, v.Cols)
		for i := range k.Rows {
			copy(k2.Row(i), k.Row(i))
			copy(v2.Row(i), v.Row(i))
		}
		for j := range k.Cols {
			k2.Set(pos, j, 5)
			v2.Set(pos, j, 100)
		}
		out := unit03.NewMat(c.T, c.heads*c.hd)
		f.Prefill(nil, out, q, k2, v2, c.heads, c.kvHeads, c.pos0)
		for r := range c.T {
			same := fmt.Sprint(out.Row(r)) == fmt.Sprint(base.Row(r))
			if r < row && !same {
				t.Errorf("changing position %d changed query row %d (position %d): a row must not see later positions", pos, r, c.pos0+r)
			}
			if r >= row && same {
				t.Errorf("changing position %d left query row %d (position %d) unchanged: a row must see every position up to its own", pos, r, c.pos0+r)
			}
		}
	}
}

// TestC8_2_Reuse: a Flash computes one problem after another with the
// same scratch, a long prompt then a short one, and the results do not
// depend on what it computed before.
func TestC8_2_Reuse(t *testing.T) {
	f := newFlash(t, 8, 2, 8, 2)
	p := unit03.NewPool(2)
	defer p.Close()
	for i, c := range []problem{{8, 2, 8, 130, 60}, {8, 2, 8, 3, 0}, {8, 2, 8, 70, 2}} {
		q, k, v, want := operands(c, uint64(120+i))
		out := unit03.NewMat(c.T, c.heads*c.hd)
		f.Prefill(p, out, q, k, v, c.heads, c.kvHeads, c.pos0)
		oracle.AssertCloseShape(t, fmt.Sprintf("Prefill number %d on one Flash, %v", i+1, c), dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
	}
}

// TestC8_2_PoolLargerThanFlash: a pool with more threads than the Flash
// has workers uses only as many as it has.
func TestC8_2_PoolLargerThanFlash(t *testing.T) {
	p := unit03.NewPool(4)
	defer p.Close()
	c := problem{8, 2, 8, 100, 10}
	q, k, v, want := operands(c, 130)
	f := newFlash(t, c.heads, c.kvHeads, c.hd, 1)
	out := unit03.NewMat(c.T, c.heads*c.hd)
	f.Prefill(p, out, q, k, v, c.heads, c.kvHeads, c.pos0)
	oracle.AssertCloseShape(t, "Prefill of a one-worker Flash on a pool of 4", dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
}

// TestC8_2_Memory: a Flash's scratch does not grow with the sequence: it
// is a few tiles per worker. Bytes counts it, per worker the same.
func TestC8_2_Memory(t *testing.T) {
	for _, c := range [][3]int{{32, 4, 64}, {4, 4, 16}, {64, 1, 8}, {3, 3, 10}} {
		heads, kvHeads, hd := c[0], c[1], c[2]
		one, two := newFlash(t, heads, kvHeads, hd, 1), newFlash(t, heads, kvHeads, hd, 2)
		group := heads / kvHeads
		rows := group * TileQueries
		// A block of keys, a few rows of scores, a maximum and a sum per
		// tile row, and a decode step's output per head.
		bound := 4 * (hd*TileKeys + max(4, group)*(TileKeys+3) + 2*rows + heads*(hd+2))
		if b := one.Bytes(); b <= 0 || b > bound {
			t.Errorf("heads %d, kv heads %d, head dim %d: Bytes = %d for one worker, want at most %d (tiles of %d rows, %d keys)", heads, kvHeads, hd, b, bound, rows, TileKeys)
		}
		// New allocates Bytes and a little more: the structs, a Partial
		// per head, and the allocator's rounding (up to an eighth, and a
		// page for a large object).
		if got := allocated(func() { newFlash(t, heads, kvHeads, hd, 1) }); float64(one.Bytes()) > got || got > 1.125*float64(one.Bytes())+8192+float64(64*heads) {
			t.Errorf("heads %d, kv heads %d, head dim %d: Bytes = %d, but New allocates %.0f bytes for one worker: Bytes must count the scratch New makes", heads, kvHeads, hd, one.Bytes(), got)
		}
		if one.Bytes()*2 != two.Bytes() {
			t.Errorf("heads %d, kv heads %d, head dim %d: Bytes = %d for one worker and %d for two, want twice as much", heads, kvHeads, hd, one.Bytes(), two.Bytes())
		}
	}
}

// TestC8_2_NoAllocations: after its first call, Prefill allocates nothing,
// on one thread and on a pool.
func TestC8_2_NoAllocations(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	c := problem{8, 2, 8, 64, 150}
	q, k, v, _ := operands(c, 140)
	out := unit03.NewMat(c.T, c.heads*c.hd)
	for _, pool := range []*unit03.Pool{nil, p} {
		f := newFlash(t, c.heads, c.kvHeads, c.hd, 2)
		f.Prefill(pool, out, q, k, v, c.heads, c.kvHeads, c.pos0)
		if n := oracle.AllocsPerRun(5, func() { f.Prefill(pool, out, q, k, v, c.heads, c.kvHeads, c.pos0) }); n != 0 {
			t.Errorf("%d threads: Prefill allocates %v times per call after the first, want 0: allocate the scratch in New", pool.Threads(), n)
		}
	}
}

// TestC8_2_Checks: shapes that do not fit, and heads other than New's,
// panic through unit00.Check.
func TestC8_2_Checks(t *testing.T) {
	c := problem{8, 2, 8, 10, 20}
	q, k, v, _ := operands(c, 150)
	out := unit03.NewMat(c.T, c.heads*c.hd)
	f := newFlash(t, c.heads, c.kvHeads, c.hd, 1)
	for _, b := range []struct {
		what string
		call func()
	}{
		{"other heads than New's", func() { f.Prefill(nil, out, q, k, v, 4, 2, c.pos0) }},
		{"other KV heads than New's", func() { f.Prefill(nil, out, q, k, v, 8, 4, c.pos0) }},
		{"q one column narrower", func() { f.Prefill(nil, out, q.Block(0, c.T, 0, q.Cols-1), k, v, 8, 2, c.pos0) }},
		{"out one row short", func() { f.Prefill(nil, out.Block(0, c.T-1, 0, out.Cols), q, k, v, 8, 2, c.pos0) }},
		{"out one column narrower", func() { f.Prefill(nil, out.Block(0, c.T, 0, out.Cols-1), q, k, v, 8, 2, c.pos0) }},
		{"k one column narrower", func() { f.Prefill(nil, out, q, k.Block(0, k.Rows, 0, k.Cols-1), v, 8, 2, c.pos0) }},
		{"v one column narrower", func() { f.Prefill(nil, out, q, k, v.Block(0, v.Rows, 0, v.Cols-1), 8, 2, c.pos0) }},
		{"k one row short of pos0+T", func() { f.Prefill(nil, out, q, k.Block(0, c.pos0+c.T-1, 0, k.Cols), v, 8, 2, c.pos0) }},
		{"v one row short of pos0+T", func() { f.Prefill(nil, out, q, k, v.Block(0, c.pos0+c.T-1, 0, v.Cols), 8, 2, c.pos0) }},
		{"a negative pos0", func() { f.Prefill(nil, out, q, k, v, 8, 2, -1) }},
		{"4 heads (New's 8) and operands shaped for 4", func() {
			f.Prefill(nil, out.Block(0, c.T, 0, 4*c.hd), q.Block(0, c.T, 0, 4*c.hd), k, v, 4, 2, c.pos0)
		}},
		{"1 KV head (New's 2) and operands shaped for it", func() {
			f.Prefill(nil, out, q, k.Block(0, k.Rows, 0, c.hd), v.Block(0, v.Rows, 0, c.hd), 8, 1, c.pos0)
		}},
	} {
		mustPanic(t, "Prefill with "+b.what, b.call)
	}
}
