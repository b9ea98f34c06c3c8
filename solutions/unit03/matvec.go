package unit03

import (
	"github.com/llmforge/forge/unit00"
)

// MatVec sets y = W·x: y[j] is the dot product of row j of W (a weight
// matrix stored [out, in]) with x. It is the whole of a decode step's
// arithmetic, and it is bound by memory: every weight is read once and used
// once, so the goal is to stream W at the speed of the memory bus. Rows are
// shared out over the pool's goroutines and taken four at a time, so each
// load of x serves four rows. It panics (unit00.Check) if len(x) ≠ W.Cols
// or len(y) ≠ W.Rows.
func MatVec(p *Pool, k Kernel, y []float32, w Mat, x []float32) {
	unit00.Check(len(x) == w.Cols && len(y) == w.Rows, "MatVec: len(x) must be W.Cols and len(y) W.Rows")
	unit00.Check(k == KernelGo || k.supported(), "MatVec: this CPU or build cannot run the kernel asked for")
	parts := min(p.Threads(), (w.Rows+3)/4)
	if parts <= 1 {
		matVecRows(k, y, w, x, 0, w.Rows)
		return
	}
	task := matVecTasks.get()
	*task = matVecTask{k: k, y: y, w: w, x: x, parts: parts}
	p.RunTask(parts, task)
	*task = matVecTask{}
	matVecTasks.put(task)
}

// matVecTask is one product shared out over a pool, recycled like gemmTask.
type matVecTask struct {
	k     Kernel
	y, x  []float32
	w     Mat
	parts int
}

var matVecTasks freeList[matVecTask]

// Do computes part t of y.
func (m *matVecTask) Do(t int) {
	lo, hi := cut(m.w.Rows, 4, m.parts, t)
	matVecRows(m.k, m.y, m.w, m.x, lo, hi)
}

// matVecRows computes y[lo:hi].
func matVecRows(k Kernel, y []float32, w Mat, x []float32, lo, hi int) {
	j := lo
	for ; j+4 <= hi; j += 4 {
		s := dot4(k, x, w.Row(j), w.Row(j+1), w.Row(j+2), w.Row(j+3))
		copy(y[j:j+4], s[:])
	}
	for ; j < hi; j++ {
		y[j] = dot(x, w.Row(j))
	}
}

// dot4 returns the dot products of x with four rows.
func dot4(k Kernel, x, w0, w1, w2, w3 []float32) [4]float32 {
	s, n := dot4Asm(k, x, w0, w1, w2, w3)
	s[0] += dot(x[n:], w0[n:])
	s[1] += dot(x[n:], w1[n:])
	s[2] += dot(x[n:], w2[n:])
	s[3] += dot(x[n:], w3[n:])
	return s
}

// dot returns Σ x[i]·w[i] with four independent partial sums, so the adds
// do not wait on each other.
func dot(x, w []float32) float32 {
	w = w[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * w[i]
		s1 += x[i+1] * w[i+1]
		s2 += x[i+2] * w[i+2]
		s3 += x[i+3] * w[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * w[i]
	}
	return (s0 + s1) + (s2 + s3)
}
