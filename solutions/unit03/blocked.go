package unit03

// MatMulIKJ sets C = A·B with the loops reordered i, p, j: the inner loop
// runs along a row of B and a row of C, both contiguous, so every cache line
// fetched is used in full, and the compiler keeps A[i][p] in a register.
func MatMulIKJ(c, a, b Mat) {
	checkProduct("MatMulIKJ", c, a, b, false)
	for i := 0; i < c.Rows; i++ {
		row := c.Data[i*c.Stride : i*c.Stride+c.Cols]
		clear(row)
		for p := 0; p < a.Cols; p++ {
			aip := a.Data[i*a.Stride+p]
			brow := b.Data[p*b.Stride : p*b.Stride+c.Cols]
			row := row[:len(brow)] // one length for both: no bounds checks inside
			for j, bv := range brow {
				row[j] += aip * bv
			}
		}
	}
}

// MatMulBlocked sets C = A·B on one thread with cache blocking and packed
// panels (see gemm.go) around the pure-Go micro-kernel.
func MatMulBlocked(c, a, b Mat) {
	checkProduct("MatMulBlocked", c, a, b, false)
	gemm(nil, KernelGo, c, a, b, false)
}
