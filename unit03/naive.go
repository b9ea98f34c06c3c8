package unit03

// MatMulNaive sets C = A·B with the textbook triple loop: for each (i, j),
// the dot product of row i of A and column j of B, accumulated in float32.
// It is the correctness baseline and the speed baseline: walking down a
// column of B touches a new cache line at every step. It panics
// (unit00.Check) on shapes that do not fit.
func MatMulNaive(c, a, b Mat) {
	panic("TODO(3.1): write MatMulNaive, see docs/unit03.md")
}

// MatMulNaiveT sets C = A·Bᵀ, B given as its N×K transpose bt: the layout
// of model weights, stored [out, in], so that C[i][j] is the dot product of
// row i of A and row j of bt, both contiguous.
func MatMulNaiveT(c, a, bt Mat) {
	panic("TODO(3.1): write MatMulNaiveT, see docs/unit03.md")
}
