//go:build !amd64 || purego

package unit08

import (
	"github.com/llmforge/forge/unit02"
	"github.com/llmforge/forge/unit03"
)

// mulRowsFast: no assembly kernel in this build; mulRows runs in Go.
func mulRowsFast(rows, cols, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, alpha, beta []float32) int {
	return 0
}

// dots sets out[j] = scale·(q · row j of k) for every row of k.
func dots(out, q []float32, k unit03.Mat, scale float32) { dotsMatVec(out, q, k, scale) }

// widenF16Rows widens n rows of halves (see widenF16Go).
func widenF16Rows(dst []float32, w int, src []byte, lds, n int) { widenF16Go(dst, w, src, lds, n) }

// widenQ8Rows widens n rows of Q8_0 blocks (see widenQ8Go).
func widenQ8Rows(dst []float32, w int, src []byte, lds, n int) { widenQ8Go(dst, w, src, lds, n) }

// dotsF16 sets out[j] = scale·(q · key j) for n keys kept as halves.
func dotsF16(out, q []float32, k []byte, ldk, n int, scale float32) {
	dotsF16Go(out[:n], q, k, ldk, scale)
}

// transpose writes n keys as hd rows of n (see transposeGo).
func transpose(kt []float32, ld int, kb []float32, ldk, n, hd int) {
	transposeGo(kt, ld, kb, ldk, n, hd)
}

// softmaxParts is unit02.SoftmaxParts(x, x, 1, floor).
func softmaxParts(x []float32, floor float32) (top, sum float32) {
	return unit02.SoftmaxParts(x, x, 1, floor)
}
