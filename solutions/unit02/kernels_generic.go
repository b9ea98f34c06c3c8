//go:build !amd64 || purego

package unit02

// Without assembly every kernel hands the whole row back to Go: each
// returns a prefix length of 0.

func maxKernel(x []float32) (float32, int) { return negInf32, 0 }

func expShiftSumKernel(dst, x, nextX, nextDst []float32, scale, shift float32) (float64, int) {
	return 0, 0
}

func scaleKernel(dst []float32, s float32) int { return 0 }

func sumSquaresKernel(x []float32) (float64, int) { return 0, 0 }

func scaleMulKernel(dst, x, w, nextX, nextDst []float32, s float32) int { return 0 }

func siluKernel(dst, x []float32) int { return 0 }

func swigluKernel(dst, gate, up []float32) int { return 0 }
