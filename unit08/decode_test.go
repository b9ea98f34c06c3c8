package unit08

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// TestC8_3_Decode: one query row at positions from 0 to well past
// MinSplit·threads, so that the keys are cut into 1 to 4 parts, parts
// cut mid-block, and parts whose maxima differ, against the oracle.
func TestC8_3_Decode(t *testing.T) {
	p4 := unit03.NewPool(4)
	defer p4.Close()
	ps, done := pools()
	defer done()
	ps = append(ps, p4)
	// Groups of 1 to 64 heads (6: one block of 4 and 2 more), head widths
	// from 6 to 256.
	shapes := [][3]int{{4, 4, 16}, {8, 2, 8}, {4, 1, 16}, {6, 2, 6}, {32, 4, 64}, {64, 1, 8}, {6, 1, 64}, {2, 1, 256}, {3, 1, 7}}
	for i, pos0 := range []int{0, 1, 127, 255, 256, 511, 512, 700, 1100, 300, 800, 600} {
		s := shapes[i%len(shapes)]
		c := problem{s[0], s[1], s[2], 1, pos0}
		q, k, v, want := operands(c, uint64(200+i))
		for _, p := range ps {
			f := newFlash(t, c.heads, c.kvHeads, c.hd, 4)
			out := nanMat(1, c.heads*c.hd)
			f.Decode(p, out, q, k, v, c.heads, c.kvHeads, c.pos0)
			what := fmt.Sprintf("Decode, %v, %d threads", c, p.Threads())
			oracle.AssertCloseShape(t, what, dense(out), want, []int{c.heads, c.hd}, attentionTol)
			checkPadding(t, what, out)
		}
	}
}

// TestC8_3_OneWorker: a Flash made for one thread decodes alone, even
// at a position long enough to split, on no pool and on a larger one.
func TestC8_3_OneWorker(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	c := problem{8, 2, 16, 1, 900}
	q, k, v, want := operands(c, 250)
	f := newFlash(t, c.heads, c.kvHeads, c.hd, 1)
	for _, pool := range []*unit03.Pool{nil, p} {
		out := nanMat(1, c.heads*c.hd)
		f.Decode(pool, out, q, k, v, c.heads, c.kvHeads, c.pos0)
		oracle.AssertCloseShape(t, fmt.Sprintf("Decode of a one-worker Flash, %v, a pool of %d", c, pool.Threads()), dense(out), want, []int{c.heads, c.hd}, attentionTol)
	}
}

// TestC8_3_LateMaximum: the largest score sits in the last thread's range
// and the others' maxima are far below it, so a merge that keeps a part's
// own maximum instead of rescaling to the largest one is far off.
func TestC8_3_LateMaximum(t *testing.T) {
	p := unit03.NewPool(3)
	defer p.Close()
	for _, late := range []int{10, 500, 1000} {
		c := problem{4, 2, 8, 1, 1023}
		q, k, v, _ := operands(c, uint64(210+late))
		for j := range k.Cols {
			k.Set(late, j, 4*q.At(0, j%q.Cols)) // a score far above the rest for head 0's group
		}
		want := oracle.Attention(oracle.Float64s(dense(q)), oracle.Float64s(dense(k.Block(0, 1024, 0, k.Cols))),
			oracle.Float64s(dense(v.Block(0, 1024, 0, v.Cols))), 1, c.pos0, c.heads, c.kvHeads, c.hd)
		f := newFlash(t, c.heads, c.kvHeads, c.hd, 3)
		out := unit03.NewMat(1, c.heads*c.hd)
		f.Decode(p, out, q, k, v, c.heads, c.kvHeads, c.pos0)
		oracle.AssertCloseShape(t, fmt.Sprintf("Decode on 3 threads with a dominant key at position %d of 1024", late), dense(out), want, []int{c.heads, c.hd}, attentionTol)
	}
}

// TestC8_3_Attend: Attend (the unit05.Attender a model calls) sends one
// row to Decode and several to Prefill; both give the oracle's result.
func TestC8_3_Attend(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	for i, c := range []problem{{8, 2, 8, 1, 600}, {8, 2, 8, 2, 600}} {
		q, k, v, want := operands(c, uint64(220+i))
		f := newFlash(t, c.heads, c.kvHeads, c.hd, 2)
		out := unit03.NewMat(c.T, c.heads*c.hd)
		f.Attend(p, out, q, k, v, c.heads, c.kvHeads, c.pos0)
		oracle.AssertCloseShape(t, fmt.Sprintf("Attend, %v", c), dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
	}
}

// TestC8_3_NoAllocations: after its first call, Decode allocates nothing.
func TestC8_3_NoAllocations(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	c := problem{8, 2, 8, 1, 900}
	q, k, v, _ := operands(c, 230)
	out := unit03.NewMat(1, c.heads*c.hd)
	for _, pool := range []*unit03.Pool{nil, p} {
		f := newFlash(t, c.heads, c.kvHeads, c.hd, 2)
		f.Decode(pool, out, q, k, v, c.heads, c.kvHeads, c.pos0)
		if n := oracle.AllocsPerRun(5, func() { f.Decode(pool, out, q, k, v, c.heads, c.kvHeads, c.pos0) }); n != 0 {
			t.Errorf("%d threads: Decode allocates %v times per call after the first, want 0: allocate the scratch in New", pool.Threads(), n)
		}
	}
}

// TestC8_3_Checks: Decode of other than one row, or shapes that do not
// fit, panic through unit00.Check.
func TestC8_3_Checks(t *testing.T) {
	c := problem{8, 2, 8, 2, 300}
	q, k, v, _ := operands(c, 240)
	f := newFlash(t, c.heads, c.kvHeads, c.hd, 1)
	out := unit03.NewMat(2, c.heads*c.hd)
	mustPanic(t, "Decode of two query rows", func() { f.Decode(nil, out, q, k, v, 8, 2, c.pos0) })
	q1, o1 := q.Block(0, 1, 0, q.Cols), out.Block(0, 1, 0, out.Cols)
	mustPanic(t, "Decode with other heads than New's", func() { f.Decode(nil, o1, q1, k, v, 4, 2, c.pos0) })
	mustPanic(t, "Decode with k one row short", func() { f.Decode(nil, o1, q1, k.Block(0, c.pos0, 0, k.Cols), v, 8, 2, c.pos0) })
	mustPanic(t, "Decode with v one column narrower", func() { f.Decode(nil, o1, q1, k, v.Block(0, v.Rows, 0, v.Cols-1), 8, 2, c.pos0) })
}
