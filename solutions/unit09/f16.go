package unit09

import (
	"encoding/binary"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// The road for F16 and BF16 weights. Their products are llama.cpp's: each
// activation is rounded to the weights' type (VecDotType), each product is
// the float32 product of the two rounded values (a half widens to a
// float32 exactly), and the products are summed in float32. Only the order
// of the sums is ours.
//
// The rounded activations are kept as float32s, not halves: the kernels
// then widen only the weights. A decode step (few activation rows) runs
// SIMD dot kernels over the weight rows, four rows at a time
// (f16_amd64.s). A prefill (many rows) would redo the widening of every
// weight once per activation row that way; instead each panel of weight
// rows is widened to float32 once, into reused scratch, and multiplied by
// unit03's float32 GEMM, which is compute-bound as a prefill should be.

// halfGemmRows is the number of activation rows from which MulT takes the
// GEMM road. Below it the dot kernels win: four weight rows stay in the L1
// or L2 cache while every activation row meets them, and unit03's GEMM
// packs all the weights even for a few rows. Measured on AVX-512, one
// thread, the two cross at about 48 rows on the tiny model's matrices
// (256 × 256 to 768 × 256); at 2048 columns the kernels are still ahead.
const halfGemmRows = 48

// halfPanelBytes bounds a panel of widened weights: about 1 MiB of float32,
// which stays in the L2 cache between its widening and the GEMM's packing
// of it, and is wide enough that repacking the activations once per panel
// costs little.
const halfPanelBytes = 1 << 20

// halfBuf is a reusable float32 scratch buffer.
type halfBuf struct{ f []float32 }

// halfTask is one F16 or BF16 MulT shared out over a pool: part t computes
// a range of weight rows, for every activation row.
type halfTask struct {
	m     *QMatrix
	y, x  unit03.Mat // x: the activations, rounded to the weights' type
	gemm  bool       // the prefill road
	panel int        // weight rows widened at a time, on the GEMM road
	parts int
}

// Two lists, so that an activation buffer never comes back as a panel
// buffer, whose size differs, and grows it again.
var (
	actBufs   freeList[halfBuf]
	panelBufs freeList[halfBuf]
	halfTasks freeList[halfTask]
)

// mulHalf is MulT for F16 and BF16 weights.
func (m *QMatrix) mulHalf(p *unit03.Pool, y, x unit03.Mat) {
	acts := actBufs.get()
	defer actBufs.put(acts)
	acts.f = growF32(acts.f, x.Rows*m.Cols)
	xr := unit03.MatOf(x.Rows, m.Cols, acts.f)
	for t := range x.Rows {
		roundHalf(m.Type, xr.Row(t), x.Row(t))
	}
	task := halfTasks.get()
	*task = halfTask{m: m, y: y, x: xr, gemm: x.Rows >= halfGemmRows}
	if task.gemm {
		task.panel = max(32, halfPanelBytes/(4*m.Cols)/32*32)
		// A small matrix gets smaller panels, so that every thread has one.
		share := (m.Rows + p.Threads() - 1) / p.Threads()
		task.panel = min(task.panel, max(32, (share+31)/32*32))
		task.parts = min(p.Threads(), (m.Rows+task.panel-1)/task.panel)
	} else {
		task.parts = min(p.Threads(), (m.Rows+15)/16)
	}
	p.RunTask(task.parts, task)
	*task = halfTask{}
	halfTasks.put(task)
}

// Do computes part t's weight rows.
func (k *halfTask) Do(t int) {
	if k.gemm {
		k.gemmRows(t)
	} else {
		k.dotRows(t)
	}
}

// dotRows takes the dot products of weight rows [lo, hi) with every
// activation row, four weight rows at a time: each activation vector,
// once loaded, serves four rows.
func (k *halfTask) dotRows(t int) {
	quads := (k.m.Rows + 3) / 4 // parts begin on multiples of four rows, as in mulTask.Do
	lo, hi := t*quads/k.parts*4, min((t+1)*quads/k.parts*4, k.m.Rows)
	dt, x, y := k.m.Type, k.x, k.y
	j := lo
	var out [12]float32
	for ; j+4 <= hi; j += 4 {
		w0, w1, w2, w3 := k.m.row(j), k.m.row(j+1), k.m.row(j+2), k.m.row(j+3)
		r := 0
		// Three activation rows at a time where a kernel can (two with the
		// second repeated): each weight vector is widened once for the
		// three. A verification pass of speculative decoding (unit12) is
		// a few rows, and costs about what one row costs this way.
		for ; r+2 <= y.Rows; r += 3 {
			n := min(3, y.Rows-r)
			if !halfDot4x3(dt, w0, w1, w2, w3, x.Row(r), x.Row(r+1), x.Row(r+n-1), &out) {
				break
			}
			for i := range n {
				copy(y.Data[(r+i)*y.Stride+j:(r+i)*y.Stride+j+4], out[4*i:4*i+4])
			}
		}
		for ; r < y.Rows; r++ {
			halfDot4(dt, w0, w1, w2, w3, x.Row(r), (*[4]float32)(y.Data[r*y.Stride+j:r*y.Stride+j+4]))
		}
	}
	for ; j < hi; j++ {
		for r := range y.Rows {
			y.Data[r*y.Stride+j] = halfDot(dt, k.m.row(j), x.Row(r))
		}
	}
}

// gemmRows widens part t's weight rows to float32 a panel at a time and
// multiplies each panel with unit03's GEMM on this goroutine (the pool's
// parts already share the rows out).
func (k *halfTask) gemmRows(t int) {
	units := (k.m.Rows + k.panel - 1) / k.panel
	lo, hi := t*units/k.parts*k.panel, min((t+1)*units/k.parts*k.panel, k.m.Rows)
	buf := panelBufs.get()
	defer panelBufs.put(buf)
	buf.f = growF32(buf.f, k.panel*k.m.Cols)
	kern := unit03.Best()
	for j0 := lo; j0 < hi; j0 += k.panel {
		j1 := min(j0+k.panel, hi)
		w := unit03.MatOf(j1-j0, k.m.Cols, buf.f)
		for j := j0; j < j1; j++ {
			widenHalf(k.m.Type, w.Row(j-j0), k.m.row(j))
		}
		unit03.MatMulT(nil, kern, k.y.Block(0, k.y.Rows, j0, j1), k.x, w)
	}
}

// roundHalfGo sets dst to src rounded to F16 or BF16 (ties to even), as
// float32s: the activations as llama.cpp's dot products see them.
func roundHalfGo(dt unit01.DType, dst, src []float32) {
	if dt == unit01.F16 {
		for i, v := range src {
			dst[i] = unit01.F16ToF32(unit01.F32ToF16(v))
		}
		return
	}
	for i, v := range src {
		dst[i] = unit01.BF16ToF32(unit01.F32ToBF16(v))
	}
}

// halfDotGo is Σ w[i]·a[i] in Go, for a row of halves w: the fallback,
// and the elements the kernels leave.
func halfDotGo(dt unit01.DType, w []byte, a []float32) float32 {
	w = w[:2*len(a)]
	var s float32
	if dt == unit01.F16 {
		for i, v := range a {
			s += unit01.F16ToF32(binary.LittleEndian.Uint16(w[2*i:])) * v
		}
		return s
	}
	for i, v := range a {
		s += unit01.BF16ToF32(binary.LittleEndian.Uint16(w[2*i:])) * v
	}
	return s
}

// widenHalfGo writes the float32 values of the halves src into dst.
func widenHalfGo(dt unit01.DType, dst []float32, src []byte) {
	src = src[:2*len(dst)]
	if dt == unit01.F16 {
		for i := range dst {
			dst[i] = unit01.F16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
		}
		return
	}
	for i := range dst {
		dst[i] = unit01.BF16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

// growF32 returns s with room for n floats, reusing its array when it can.
func growF32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}
