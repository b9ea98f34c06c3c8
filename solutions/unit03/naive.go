package unit03

// MatMulNaive sets C = A·B with the textbook triple loop: for each (i, j),
// the dot product of row i of A and column j of B, accumulated in float32.
// It is the correctness baseline and the speed baseline: walking down a
// column of B touches a new cache line at every step. It panics
// (unit00.Check) on shapes that do not fit.
func MatMulNaive(c, a, b Mat) {
	checkProduct("MatMulNaive", c, a, b, false)
	for i := 0; i < c.Rows; i++ {
		for j := 0; j < c.Cols; j++ {
			var s float32
			for p := 0; p < a.Cols; p++ {
				s += a.Data[i*a.Stride+p] * b.Data[p*b.Stride+j]
			}
			c.Data[i*c.Stride+j] = s
		}
	}
}

// MatMulNaiveT sets C = A·Bᵀ, B given as its N×K transpose bt: the layout
// of model weights, stored [out, in], so that C[i][j] is the dot product of
// row i of A and row j of bt, both contiguous.
func MatMulNaiveT(c, a, bt Mat) {
	checkProduct("MatMulNaiveT", c, a, bt, true)
	for i := 0; i < c.Rows; i++ {
		for j := 0; j < c.Cols; j++ {
			var s float32
			for p := 0; p < a.Cols; p++ {
				s += a.Data[i*a.Stride+p] * bt.Data[j*bt.Stride+p]
			}
			c.Data[i*c.Stride+j] = s
		}
	}
}
