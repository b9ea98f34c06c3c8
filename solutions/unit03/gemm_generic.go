//go:build !amd64 || purego

package unit03

// Without assembly only the pure-Go kernel exists.

func (k Kernel) supported() bool { return k == KernelGo }

func microAsm(k Kernel, rows, kc int, a, b, c []float32, ldc int, accumulate bool) {
	panic("unit03: no assembly kernels in this build")
}

func dot4Asm(k Kernel, x, w0, w1, w2, w3 []float32) (s [4]float32, n int) { return s, 0 }

func packPanelAsm(panel []float32, a Mat, row, p0, kc, mr int) bool { return false }

func packBPanelAsm(panel []float32, b Mat, p0, kc, j, nr int) bool { return false }
