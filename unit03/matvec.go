package unit03

// MatVec sets y = W·x: y[j] is the dot product of row j of W (a weight
// matrix stored [out, in]) with x. It is the whole of a decode step's
// arithmetic, and it is bound by memory: every weight is read once and used
// once, so the goal is to stream W at the speed of the memory bus. Rows are
// shared out over the pool's goroutines and taken four at a time, so each
// load of x serves four rows. It panics (unit00.Check) if len(x) ≠ W.Cols
// or len(y) ≠ W.Rows.
func MatVec(p *Pool, k Kernel, y []float32, w Mat, x []float32) {
	panic("TODO(3.5): write MatVec, see docs/unit03.md")
}
