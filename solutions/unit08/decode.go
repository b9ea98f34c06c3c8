package unit08

import (
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// Decode computes attention for one query row (q has one row) at
// position pos0 over keys and values 0 … pos0, as Prefill does, but shares
// the keys out instead of the rows ("flash decoding", split-K): each of up
// to p.Threads() parts folds a contiguous range of positions into a
// Partial per head, and the parts' partials are merged into the result.
// A part gets at least MinSplit positions, so a short cache is not cut
// into pieces too small to pay for the handoff. It panics
// (unit00.Check) on shapes that do not fit or heads other than New's.
func (f *Flash) Decode(p *unit03.Pool, out, q, k, v unit03.Mat, heads, kvHeads, pos0 int) {
	f.decode(p, out, q, matKV(k), matKV(v), heads, kvHeads, pos0)
}

// decode is Decode over keys and values in any of the store's types.
func (f *Flash) decode(p *unit03.Pool, out, q unit03.Mat, k, v kv, heads, kvHeads, pos0 int) {
	f.check(out, q, k, v, heads, kvHeads, pos0)
	unit00.Check(q.Rows == 1, "Decode: q must be one row")
	S := pos0 + 1
	parts := max(1, min(p.Threads(), len(f.workers), S/MinSplit))
	f.dec = decodeTask{f: f, q: q, k: k, v: v, keys: S, parts: parts}
	p.RunTask(parts, &f.dec)
	f.dec = decodeTask{}
	// Merge every part's partial of head h into part 0's, then divide.
	first := f.workers[0]
	for h := range heads {
		for _, w := range f.workers[1:parts] {
			first.heads[h].Merge(&w.heads[h])
		}
		first.heads[h].Result(out.Row(0)[h*f.hd : (h+1)*f.hd])
	}
}

// decodeTask shares a decode step's positions out: part i folds positions
// keys·i/parts … keys·(i+1)/parts − 1 into worker i's partial per head.
type decodeTask struct {
	f           *Flash
	q           unit03.Mat
	k, v        kv
	keys, parts int
}

func (t *decodeTask) Do(i int) {
	f, w := t.f, t.f.workers[i]
	lo, hi := t.keys*i/t.parts, t.keys*(i+1)/t.parts
	hd, group := f.hd, f.heads/f.kvHeads
	scale := float32(1 / math.Sqrt(float64(hd)))
	for h := range f.heads {
		w.heads[h].Reset()
	}
	for g := range f.kvHeads {
		for a := lo; a < hi; a += TileKeys {
			nb := min(TileKeys, hi-a)
			var kb unit03.Mat
			if t.k.typ != CacheF16 { // halves are read as they lie, below
				kd, ldk := t.k.block(w.kb, a, nb, g*hd, hd)
				kb = unit03.Mat{Rows: nb, Cols: hd, Stride: ldk, Data: kd}
			}
			// Each head's scores against the block, dot products with
			// the keys where they lie, and the fold factors.
			for hh := range group {
				h := g*group + hh
				row := w.s[hh*TileKeys : hh*TileKeys+nb]
				if t.k.typ == CacheF16 {
					dotsF16(row, t.q.Row(0)[h*hd:(h+1)*hd], t.k.data[a*t.k.rowBytes+2*g*hd:], t.k.rowBytes, nb, scale)
				} else {
					dots(row, t.q.Row(0)[h*hd:(h+1)*hd], kb, scale)
				}
				part := &w.heads[h]
				top, l := softmaxParts(row, part.M)
				w.alpha[hh] = shrink(part.M, top)
				part.M, part.L = top, w.alpha[hh]*part.L+l
			}
			// The group's outputs, heads side by side: O = α·O + P·V.
			o := w.ho[g*group*hd : (g+1)*group*hd]
			vb, ldv := t.v.block(w.vb, a, nb, g*hd, hd)
			mulRows(group, hd, nb, w.s, TileKeys, vb, ldv, o, hd, w.alpha, w.ones)
		}
	}
}
