package unit03

// MatMulIKJ sets C = A·B with the loops reordered i, p, j: the inner loop
// runs along a row of B and a row of C, both contiguous, so every cache line
// fetched is used in full, and the compiler keeps A[i][p] in a register.
func MatMulIKJ(c, a, b Mat) {
	panic("TODO(3.2): write MatMulIKJ, see docs/unit03.md")
}

// MatMulBlocked sets C = A·B on one thread with cache blocking and packed
// panels around a pure-Go micro-kernel (docs/unit03.md, 3.2).
func MatMulBlocked(c, a, b Mat) {
	panic("TODO(3.2): write MatMulBlocked, see docs/unit03.md")
}
