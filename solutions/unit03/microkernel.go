package unit03

// kernelGo is the pure-Go micro-kernel, 4×4: it computes one tile of C from
// packed panels as the assembly kernels do (see gemm_amd64.s), keeping the
// 16 sums in local variables that the compiler holds in registers.
func kernelGo(kc int, a, b, c []float32, ldc int, accumulate bool) {
	var c00, c01, c02, c03, c10, c11, c12, c13 float32
	var c20, c21, c22, c23, c30, c31, c32, c33 float32
	a, b = a[:4*kc], b[:4*kc]
	for p := 0; p < 4*kc; p += 4 {
		a0, a1, a2, a3 := a[p], a[p+1], a[p+2], a[p+3]
		b0, b1, b2, b3 := b[p], b[p+1], b[p+2], b[p+3]
		c00, c01, c02, c03 = c00+a0*b0, c01+a0*b1, c02+a0*b2, c03+a0*b3
		c10, c11, c12, c13 = c10+a1*b0, c11+a1*b1, c12+a1*b2, c13+a1*b3
		c20, c21, c22, c23 = c20+a2*b0, c21+a2*b1, c22+a2*b2, c23+a2*b3
		c30, c31, c32, c33 = c30+a3*b0, c31+a3*b1, c32+a3*b2, c33+a3*b3
	}
	tile := [4][4]float32{{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}, {c30, c31, c32, c33}}
	for r := range tile {
		row := c[r*ldc : r*ldc+4]
		for j := range row {
			if accumulate {
				row[j] += tile[r][j]
			} else {
				row[j] = tile[r][j]
			}
		}
	}
}
