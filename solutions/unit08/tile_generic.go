//go:build !amd64 || purego

package unit08

import "github.com/llmforge/forge/unit03"

// mulRowsFast: no assembly kernel in this build; mulRows runs in Go.
func mulRowsFast(rows, cols, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, alpha, beta []float32) int {
	return 0
}

// dots sets out[j] = scale·(q · row j of k) for every row of k.
func dots(out, q []float32, k unit03.Mat, scale float32) { dotsGo(out, q, k, scale) }

// widenF16 writes the float32 values of the halves src into dst.
func widenF16(dst []float32, src []byte) { widenF16Go(dst, src) }

// widenQ8 writes the values of the Q8_0 blocks src into dst.
func widenQ8(dst []float32, src []byte) { widenQ8Go(dst, src) }
