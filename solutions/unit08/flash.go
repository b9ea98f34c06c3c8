package unit08

import (
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// New returns flash attention for heads query heads of width headDim
// sharing kvHeads key/value heads, with scratch for up to threads workers.
// Sizes that are not positive, heads not a multiple of kvHeads, or more
// than MaxThreads threads are an error wrapping unit00.ErrInvalid.
func New(heads, kvHeads, headDim, threads int) (*Flash, error) {
	switch {
	case heads <= 0 || kvHeads <= 0 || headDim <= 0 || threads <= 0:
		return nil, fmt.Errorf("flash attention: heads %d, kvHeads %d, headDim %d and threads %d must be positive: %w", heads, kvHeads, headDim, threads, unit00.ErrInvalid)
	case heads%kvHeads != 0:
		return nil, fmt.Errorf("flash attention: %d heads is not a multiple of %d KV heads: %w", heads, kvHeads, unit00.ErrInvalid)
	case threads > MaxThreads:
		return nil, fmt.Errorf("flash attention: %d threads, at most %d: %w", threads, MaxThreads, unit00.ErrInvalid)
	}
	f := &Flash{heads: heads, kvHeads: kvHeads, hd: headDim}
	for range threads {
		f.workers = append(f.workers, newWorker(heads, heads/kvHeads, headDim))
	}
	return f, nil
}

// newWorker carves one worker's scratch out of a single allocation: a
// block of keys transposed, the score rows of a product (4 for a prompt's
// rows, the group's heads for a decode step), each tile row's maximum and
// sum, the rows' rescale factors, 1s, the scores' scale, and a decode
// step's output per head.
func newWorker(heads, group, hd int) *worker {
	rows := max(4, group)
	buf := make([]float32, hd*TileKeys+rows*TileKeys+2*group*TileQueries+2*rows+4+heads*hd)
	w := &worker{buf: buf}
	next := func(n int) []float32 {
		s := buf[:n:n]
		buf = buf[n:]
		return s
	}
	w.kt, w.s = next(hd*TileKeys), next(rows*TileKeys)
	w.m, w.l = next(group*TileQueries), next(group*TileQueries)
	w.alpha, w.ones, w.scale = next(rows), next(rows), next(4)
	w.ho = next(heads * hd)
	for r := range w.ones {
		w.ones[r] = 1
	}
	w.heads = make([]Partial, heads)
	for h := range w.heads {
		w.heads[h].O = w.ho[h*hd : (h+1)*hd : (h+1)*hd]
	}
	return w
}

// Bytes is the scratch memory f holds, every worker's together: all the
// memory attention needs besides its operands, whatever the length of the
// sequence.
func (f *Flash) Bytes() int {
	n := 0
	for _, w := range f.workers {
		n += len(w.buf) + len(w.kb) + len(w.vb)
	}
	return 4 * n
}

// check panics unless the shapes fit Attention's contract and f's heads.
func (f *Flash) check(out, q unit03.Mat, k, v kv, heads, kvHeads, pos0 int) {
	unit00.Check(heads == f.heads && kvHeads == f.kvHeads, "flash attention: heads and kvHeads must be New's")
	unit00.Check(q.Cols == heads*f.hd && out.Rows == q.Rows && out.Cols == q.Cols, "flash attention: q and out must be T × heads·headDim")
	w := kvHeads * f.hd // a Store's rows are this wide by construction
	unit00.Check((k.typ != CacheF32 || k.ext != nil || k.m.Cols == w) && (v.typ != CacheF32 || v.ext != nil || v.m.Cols == w), "flash attention: k and v must be kvHeads·headDim wide")
	unit00.Check(pos0 >= 0 && k.rows >= pos0+q.Rows && v.rows >= pos0+q.Rows, "flash attention: k and v must cover positions 0 … pos0+T−1")
}

// Prefill computes causal grouped-query attention for the T rows of q, the
// tokens at positions pos0 … pos0+T−1, as unit05.Attention does (same
// arguments and result), without ever holding a row's scores for more
// than TileKeys keys. Its unit of work is a tile: up to TileQueries rows
// of every query head of one KV group. A tile walks the keys a block of
// TileKeys at a time; each block's keys are transposed once and serve all
// of the group's heads, and each row folds the block into a running
// maximum, sum and output (the output kept in out itself). The tiles are
// shared out over p. It panics (unit00.Check) on shapes that do not fit
// or heads other than New's.
func (f *Flash) Prefill(p *unit03.Pool, out, q, k, v unit03.Mat, heads, kvHeads, pos0 int) {
	f.prefill(p, out, q, matKV(k), matKV(v), heads, kvHeads, pos0)
}

// prefill is Prefill over keys and values in any of the store's types.
func (f *Flash) prefill(p *unit03.Pool, out, q unit03.Mat, k, v kv, heads, kvHeads, pos0 int) {
	f.check(out, q, k, v, heads, kvHeads, pos0)
	T := q.Rows
	threads := min(p.Threads(), len(f.workers))
	// Tiles of at most TileQueries rows, and enough of them to give every
	// thread work when there are fewer KV groups than threads.
	bands := (threads + kvHeads - 1) / kvHeads
	rows := min(TileQueries, (T+bands-1)/bands)
	units := kvHeads * ((T + rows - 1) / rows)
	parts := min(threads, units)
	f.pre = prefillTask{f: f, out: out, q: q, k: k, v: v, pos0: pos0, rows: rows, units: units, parts: parts}
	p.RunTask(parts, &f.pre)
	f.pre = prefillTask{} // drop the views of the caller's matrices
}

// prefillTask shares a prompt's tiles out: part i computes units i,
// i+parts, … with worker i's scratch. Unit u is row tile u/kvHeads of KV
// group u%kvHeads; later tiles see more keys, so striding the units over
// the parts gives each part early and late ones alike.
type prefillTask struct {
	f            *Flash
	out, q       unit03.Mat
	k, v         kv
	pos0, rows   int
	units, parts int
}

func (t *prefillTask) Do(i int) {
	f, w := t.f, t.f.workers[i]
	for u := i; u < t.units; u += t.parts {
		g, t0 := u%f.kvHeads, (u/f.kvHeads)*t.rows
		f.tile(w, t.out, t.q, &t.k, &t.v, g, t0, min(t0+t.rows, t.q.Rows), t.pos0)
	}
}

// tile computes query rows t0 … t1−1 of every head of KV group g. Row i
// of the tile, head g·group + i/n and query row t0 + i%n (n = t1−t0), keeps
// its running maximum and sum in w.m[i] and w.l[i] and its running output
// in its own place in out.
func (f *Flash) tile(w *worker, out, q unit03.Mat, k, v *kv, g, t0, t1, pos0 int) {
	hd, group, n := f.hd, f.heads/f.kvHeads, t1-t0
	for i := range group * n {
		h, t := g*group+i/n, t0+i%n
		w.m[i], w.l[i] = negInf, 0
		clear(out.Row(t)[h*hd : (h+1)*hd])
	}
	scale := float32(1 / math.Sqrt(float64(hd)))
	for r := range w.scale {
		w.scale[r] = scale // every score row's scale, for mulRows
	}
	end := pos0 + t1 // the keys the tile's last row sees: 0 … pos0+t1−1
	for a := 0; a < end; a += TileKeys {
		nb := min(TileKeys, end-a)
		kb, ldk := k.block(w.kb, a, nb, g*hd, hd)
		transpose(w.kt, TileKeys, kb, ldk, nb, hd)
		vb, ldv := v.block(w.vb, a, nb, g*hd, hd)
		first := max(t0, a-pos0) // the first row that sees key a
		for hh := range group {
			h := g*group + hh
			for t := first; t < t1; t += 4 {
				f.rows(w, out, q, vb, ldv, h, t, min(t+4, t1), hh*n+t-t0, a, nb, pos0)
			}
		}
	}
	for i := range group * n {
		h, t := g*group+i/n, t0+i%n
		o := out.Row(t)[h*hd : (h+1)*hd]
		inv := 1 / w.l[i] // every row sees key 0, so its sum is positive
		for j := range o {
			o[j] *= inv
		}
	}
}

// rows folds keys a … a+nb−1 into query rows t0 … t1−1 (at most 4) of head
// h, tile rows i0 …: their scores against the transposed block in w.kt,
// the block's values in vb (row stride ldv),
// each row's exponentials over the keys it may see (the rest zero),
// against its running maximum raised to the block's, and out = α·out +
// exponentials·V, α rescaling what was summed before to that maximum.
func (f *Flash) rows(w *worker, out, q unit03.Mat, vb []float32, ldv, h, t0, t1, i0, a, nb, pos0 int) {
	hd, R := f.hd, t1-t0
	// On the diagonal the rows see only the block's first keys: the last
	// row sees need of them, and no product goes further. The scores go
	// on to a whole 64 columns, the assembly kernel's width.
	need := min(nb, pos0+t1-a)
	mulRows(R, min(nb, (need+63)&^63), hd, q.Data[t0*q.Stride+h*hd:], q.Stride, w.kt, TileKeys, w.s, TileKeys, nil, w.scale)
	for r := range R {
		row := w.s[r*TileKeys : r*TileKeys+need]
		c := min(pos0+t0+r+1-a, need) // keys of the block row r sees (at least 1: rows start at first)
		i := i0 + r
		top, l := softmaxParts(row[:c], w.m[i])
		clear(row[c:])
		a := shrink(w.m[i], top) // 1 unless this block raised the maximum
		w.m[i], w.l[i] = top, a*w.l[i]+l
		w.alpha[r] = a
	}
	mulRows(R, hd, need, w.s, TileKeys, vb, ldv, out.Data[t0*out.Stride+h*hd:], out.Stride, w.alpha, w.ones)
}
