package unit05

import "github.com/llmforge/forge/unit03"

// attentionTask shares a block's attention out over a pool by rows: the
// rows of a prompt are independent (each reads the cache, writes its own
// output), so part i computes a band of them into the same out, with a
// scores row of its own: a band of one row (a decode step) by Attention,
// one of several by attentionGEMM, its two products. A row's cost grows
// with its position (it attends to every earlier one), so the bands are
// cut where the cumulative cost crosses i/parts of the whole, not at equal
// counts.
type attentionTask struct {
	out, q, k, v   unit03.Mat
	heads, kvHeads int
	pos0, parts    int
	scores         unit03.Mat // parts × T·(pos0+T): room for a band's scores as a matrix
}

// Do computes band i.
func (a *attentionTask) Do(i int) {
	r0, r1 := a.band(i), a.band(i+1)
	if r0 == r1 {
		return
	}
	cols := a.q.Cols
	out, q := a.out.Block(r0, r1, 0, cols), a.q.Block(r0, r1, 0, cols)
	if r1-r0 == 1 {
		Attention(out, q, a.k, a.v, a.heads, a.kvHeads, a.pos0+r0, a.scores.Row(i))
		return
	}
	S := a.pos0 + r1 // the positions the band's last row sees
	attentionGEMM(out, q, a.k.Block(0, S, 0, a.k.Cols), a.v.Block(0, S, 0, a.v.Cols),
		a.heads, a.kvHeads, a.pos0+r0, unit03.MatOf(r1-r0, S, a.scores.Row(i)[:(r1-r0)*S]))
}

// band returns the first row of band i (band parts ends at T): the first
// row whose cumulative cost, Σ (pos0+t+1) over the rows before it, reaches
// i/parts of the total.
func (a *attentionTask) band(i int) int {
	T := a.q.Rows
	if i >= a.parts {
		return T
	}
	total := T*a.pos0 + T*(T+1)/2
	want, cum := total*i/a.parts, 0
	for t := range T {
		if cum >= want {
			return t
		}
		cum += a.pos0 + t + 1
	}
	return T
}
