package unit14

import (
	"encoding/binary"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// Q8Gemm multiplies Q8_0 weights by Q8_0 activations: the integer GEMM
// of a prompt's prefill, where every weight row meets many activation
// rows. It keeps its pool task in itself, so a call allocates nothing; a
// Q8Gemm is not safe for concurrent use. The zero value is ready.
type Q8Gemm struct {
	task gemmTask
}

// MulT sets y = x·Wᵀ where w holds the rows of W (y.Cols of them) and a
// the rows of x (y.Rows of them), cols elements each, both as Q8_0
// blocks: y[t][j] = Σ over blocks of d_w·d_a·Σ q_w·q_a, the quants
// multiplied and summed in integers, the scales applied once per block.
// The work is tiled four weight rows by four activation rows: each block
// fetched is used four times while it is in the L1 cache, so the product
// moves a quarter of the bytes per operation a row-by-row product moves.
// The weight rows are shared out over p (nil: one thread) with Span in
// fours, so every y element is computed the same way whatever the thread
// count. y may be a view with a stride. It panics (unit00.Check) unless
// cols is a positive multiple of 32 and w and a hold exactly y.Cols and
// y.Rows rows.
func (g *Q8Gemm) MulT(p *unit03.Pool, y unit03.Mat, w, a []byte, cols int) {
	unit00.Check(cols > 0 && cols%32 == 0, "Q8Gemm.MulT: cols must be a positive multiple of 32")
	rb := cols / 32 * 34
	unit00.Check(len(w) == y.Cols*rb && len(a) == y.Rows*rb, "Q8Gemm.MulT: w must hold y.Cols rows and a y.Rows rows of cols Q8_0 elements")
	parts := min(p.Threads(), (y.Cols+3)/4)
	g.task = gemmTask{y: y, w: w, a: a, rowBytes: rb, parts: parts}
	p.RunTask(parts, &g.task)
	g.task = gemmTask{} // drop the caller's slices
}

// gemmTask is one MulT shared out over a pool by weight rows.
type gemmTask struct {
	y        unit03.Mat
	w, a     []byte
	rowBytes int
	parts    int
}

// Do computes part t's weight rows for every activation row, in tiles of
// up to four by four.
func (k *gemmTask) Do(t int) {
	lo, hi := Span(t, k.parts, k.y.Cols, 4)
	for j := lo; j < hi; j += 4 {
		nj := min(4, hi-j)
		for r := 0; r < k.y.Rows; r += 4 {
			k.tile(j, nj, r, min(4, k.y.Rows-r))
		}
	}
}

// tile computes the nj×nr results of weight rows j … j+nj−1 and
// activation rows r … r+nr−1 (nj, nr ≤ 4), block by block.
func (k *gemmTask) tile(j, nj, r, nr int) {
	var acc [4][4]float32
	var wq, aq [4][]byte
	var wd, ad [4]float32
	for b := 0; b < k.rowBytes; b += 34 {
		for x := range nj {
			blk := k.w[(j+x)*k.rowBytes+b:]
			wd[x], wq[x] = half(blk), blk[2:]
		}
		for s := range nr {
			blk := k.a[(r+s)*k.rowBytes+b:]
			ad[s], aq[s] = half(blk), blk[2:]
		}
		for x := range nj {
			for s := range nr {
				acc[x][s] += wd[x] * ad[s] * float32(dot32(wq[x], aq[s]))
			}
		}
	}
	for s := range nr {
		row := k.y.Row(r + s)
		for x := range nj {
			row[j+x] = acc[x][s]
		}
	}
}

// dot32 is the integer dot product of two blocks' 32 signed quants.
func dot32(w, a []byte) int32 {
	w, a = w[:32], a[:32]
	var s int32
	for i := range 32 {
		s += int32(int8(w[i])) * int32(int8(a[i]))
	}
	return s
}

// half reads the F16 scale at the start of a block.
func half(b []byte) float32 { return unit01.F16ToF32(binary.LittleEndian.Uint16(b)) }
