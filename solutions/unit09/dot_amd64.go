//go:build amd64 && !purego

package unit09

import (
	"golang.org/x/sys/cpu"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// The assembly dot products, at two levels:
//
//   - levelVNNI (dot_amd64.s; Q5_0, Q4_1 and Q5_K in dot_more_amd64.s):
//     AVX-512 with VNNI. VPDPBUSD multiplies 64
//     unsigned bytes by 64 signed bytes and adds each group of four
//     products into one of sixteen 32-bit sums, in one instruction.
//   - levelAVX2 (dot_avx2_amd64.s; dot_more_avx2_amd64.s): AVX2 with FMA. VPMADDUBSW multiplies
//     32 unsigned by 32 signed bytes into sixteen 16-bit sums of pairs,
//     and VPMADDWD by ones (or by a scale) adds the pairs into eight
//     32-bit sums.
//
// Each kernel takes whole groups of blocks (groupBytes: pairs of Q4_0
// blocks, or groups of four in the VNNI 4-row kernel); the Go dot products
// finish the blocks left over. Every weight type but the float ones has
// its kernels.
const (
	levelGo = iota
	levelAVX2
	levelVNNI
)

// level is the widest kernel set this CPU runs, detected once. CI runs the
// tests a second time with GODEBUG=cpu.avx512f=off, which x/sys/cpu
// honours, so that the AVX2 kernels are tested on an AVX-512 machine too.
var level = detectLevel()

func detectLevel() int {
	switch {
	case unit00.CPUSIMD() >= unit00.SIMDAVX512 && cpu.X86.HasAVX512VNNI:
		return levelVNNI
	case unit00.CPUSIMD() >= unit00.SIMDAVX2:
		return levelAVX2
	}
	return levelGo
}

// The kernels. Each takes pointers to the first byte of its rows and of
// the activations, and a count n ≥ 1 of groups (see groupBytes); the
// callers below check that the rows hold that many, since assembly checks
// no bounds. The 1-row kernels return the dot product, the 4-row ones
// store the four into out.

//go:noescape
func dotQ4_0VNNI(w, a *byte, pairs int) float32

//go:noescape
func dot4Q4_0VNNI(w0, w1, w2, w3, a *byte, quads int, out *[4]float32)

//go:noescape
func dotQ4_0AVX2(w, a *byte, pairs int) float32

//go:noescape
func dot4Q4_0AVX2(w0, w1, w2, w3, a *byte, pairs int, out *[4]float32)

//go:noescape
func dotQ8_0VNNI(w, a *byte, pairs int) float32

//go:noescape
func dot4Q8_0VNNI(w0, w1, w2, w3, a *byte, pairs int, out *[4]float32)

//go:noescape
func dotQ8_0AVX2(w, a *byte, blocks int) float32

//go:noescape
func dot4Q8_0AVX2(w0, w1, w2, w3, a *byte, blocks int, out *[4]float32)

//go:noescape
func dotQ4_KVNNI(w, a *byte, supers int) float32

//go:noescape
func dot4Q4_KVNNI(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)

//go:noescape
func dotQ4_KAVX2(w, a *byte, supers int) float32

//go:noescape
func dot4Q4_KAVX2(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)

//go:noescape
func dotQ6_KVNNI(w, a *byte, supers int) float32

//go:noescape
func dot4Q6_KVNNI(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)

//go:noescape
func dotQ6_KAVX2(w, a *byte, supers int) float32

//go:noescape
func dot4Q6_KAVX2(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)

//go:noescape
func dotQ5_0VNNI(w, a *byte, quads int) float32

//go:noescape
func dot4Q5_0VNNI(w0, w1, w2, w3, a *byte, quads int, out *[4]float32)

//go:noescape
func dotQ5_0AVX2(w, a *byte, pairs int) float32

//go:noescape
func dot4Q5_0AVX2(w0, w1, w2, w3, a *byte, pairs int, out *[4]float32)

//go:noescape
func dotQ4_1VNNI(w, a *byte, quads int) float32

//go:noescape
func dot4Q4_1VNNI(w0, w1, w2, w3, a *byte, quads int, out *[4]float32)

//go:noescape
func dotQ4_1AVX2(w, a *byte, pairs int) float32

//go:noescape
func dot4Q4_1AVX2(w0, w1, w2, w3, a *byte, pairs int, out *[4]float32)

//go:noescape
func dotQ5_KVNNI(w, a *byte, supers int) float32

//go:noescape
func dot4Q5_KVNNI(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)

//go:noescape
func dotQ5_KAVX2(w, a *byte, supers int) float32

//go:noescape
func dot4Q5_KAVX2(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)

// groupBytes returns the weight and activation bytes one step of the
// kernels of type dt takes at the current level: of each row for the
// 4-row kernel if four, else of the one row.
func groupBytes(dt unit01.DType, four bool) (wb, ab int) {
	vnni := level == levelVNNI
	switch dt {
	case unit01.Q4_0:
		if vnni && four {
			return 72, 136 // four blocks
		}
		return 36, 68 // two blocks
	case unit01.Q8_0:
		if vnni {
			return 68, 68 // two blocks
		}
		return 34, 34
	case unit01.Q5_0:
		if vnni {
			return 88, 136 // four blocks, in both kernels
		}
		return 44, 68 // two blocks
	case unit01.Q4_1:
		if vnni {
			return 80, 136 // four blocks, in both kernels
		}
		return 40, 68 // two blocks
	case unit01.Q4_K:
		return 144, 292
	case unit01.Q5_K:
		return 176, 292
	}
	return 210, 292 // Q6_K
}

// kernel1 runs the 1-row kernel of type dt over n groups.
func kernel1(dt unit01.DType, w, a *byte, n int) float32 {
	if level == levelVNNI {
		switch dt {
		case unit01.Q4_0:
			return dotQ4_0VNNI(w, a, n)
		case unit01.Q8_0:
			return dotQ8_0VNNI(w, a, n)
		case unit01.Q5_0:
			return dotQ5_0VNNI(w, a, n)
		case unit01.Q4_1:
			return dotQ4_1VNNI(w, a, n)
		case unit01.Q4_K:
			return dotQ4_KVNNI(w, a, n)
		case unit01.Q5_K:
			return dotQ5_KVNNI(w, a, n)
		}
		return dotQ6_KVNNI(w, a, n)
	}
	switch dt {
	case unit01.Q4_0:
		return dotQ4_0AVX2(w, a, n)
	case unit01.Q8_0:
		return dotQ8_0AVX2(w, a, n)
	case unit01.Q5_0:
		return dotQ5_0AVX2(w, a, n)
	case unit01.Q4_1:
		return dotQ4_1AVX2(w, a, n)
	case unit01.Q4_K:
		return dotQ4_KAVX2(w, a, n)
	case unit01.Q5_K:
		return dotQ5_KAVX2(w, a, n)
	}
	return dotQ6_KAVX2(w, a, n)
}

// kernel4 runs the 4-row kernel of type dt over n groups.
func kernel4(dt unit01.DType, w0, w1, w2, w3, a *byte, n int, out *[4]float32) {
	if level == levelVNNI {
		switch dt {
		case unit01.Q4_0:
			dot4Q4_0VNNI(w0, w1, w2, w3, a, n, out)
		case unit01.Q8_0:
			dot4Q8_0VNNI(w0, w1, w2, w3, a, n, out)
		case unit01.Q5_0:
			dot4Q5_0VNNI(w0, w1, w2, w3, a, n, out)
		case unit01.Q4_1:
			dot4Q4_1VNNI(w0, w1, w2, w3, a, n, out)
		case unit01.Q4_K:
			dot4Q4_KVNNI(w0, w1, w2, w3, a, n, out)
		case unit01.Q5_K:
			dot4Q5_KVNNI(w0, w1, w2, w3, a, n, out)
		default:
			dot4Q6_KVNNI(w0, w1, w2, w3, a, n, out)
		}
		return
	}
	switch dt {
	case unit01.Q4_0:
		dot4Q4_0AVX2(w0, w1, w2, w3, a, n, out)
	case unit01.Q8_0:
		dot4Q8_0AVX2(w0, w1, w2, w3, a, n, out)
	case unit01.Q5_0:
		dot4Q5_0AVX2(w0, w1, w2, w3, a, n, out)
	case unit01.Q4_1:
		dot4Q4_1AVX2(w0, w1, w2, w3, a, n, out)
	case unit01.Q4_K:
		dot4Q4_KAVX2(w0, w1, w2, w3, a, n, out)
	case unit01.Q5_K:
		dot4Q5_KAVX2(w0, w1, w2, w3, a, n, out)
	default:
		dot4Q6_KAVX2(w0, w1, w2, w3, a, n, out)
	}
}

// dotGo is the Go dot product of type dt: the fallback, and the end of a
// row the kernels leave.
func dotGo(dt unit01.DType, w, a []byte) float32 {
	switch dt {
	case unit01.Q4_0:
		return dotQ4_0Go(w, a)
	case unit01.Q8_0:
		return dotQ8_0Go(w, a)
	case unit01.Q5_0:
		return dotQ5_0Go(w, a)
	case unit01.Q4_1:
		return dotQ4_1Go(w, a)
	case unit01.Q4_K:
		return dotQ4_KGo(w, a)
	case unit01.Q5_K:
		return dotQ5_KGo(w, a)
	}
	return dotQ6_KGo(w, a)
}

// dotAsm is the dot product of a row of type dt (a quantized weight type,
// not Q8_K) with a: the 1-row kernel over its whole groups, Go for the rest.
// The activations hold as many blocks as w (the callers checked), so one
// bounds check of each covers all the kernel reads.
func dotAsm(dt unit01.DType, w, a []byte) float32 {
	if level == levelGo {
		return dotGo(dt, w, a)
	}
	wb, ab := groupBytes(dt, false)
	n := len(w) / wb
	var s float32
	if n > 0 {
		_, _ = w[n*wb-1], a[n*ab-1]
		s = kernel1(dt, &w[0], &a[0], n)
	}
	if n*wb < len(w) {
		s += dotGo(dt, w[n*wb:], a[n*ab:])
	}
	return s
}

func dotQ4_0(w, a []byte) float32 { return dotAsm(unit01.Q4_0, w, a) }
func dotQ8_0(w, a []byte) float32 { return dotAsm(unit01.Q8_0, w, a) }
func dotQ5_0(w, a []byte) float32 { return dotAsm(unit01.Q5_0, w, a) }
func dotQ4_1(w, a []byte) float32 { return dotAsm(unit01.Q4_1, w, a) }
func dotQ4_K(w, a []byte) float32 { return dotAsm(unit01.Q4_K, w, a) }
func dotQ5_K(w, a []byte) float32 { return dotAsm(unit01.Q5_K, w, a) }
func dotQ6_K(w, a []byte) float32 { return dotAsm(unit01.Q6_K, w, a) }

// dot4 takes the dot products of four rows of type dt with a in one pass
// of a 4-row kernel, and the groups it leaves over with dotAsm; it reports
// false for the types and rows it has no kernel for.
func dot4(dt unit01.DType, w0, w1, w2, w3, a []byte, out *[4]float32) bool {
	switch {
	case level == levelGo:
		return false
	case dt != unit01.Q4_0 && dt != unit01.Q8_0 && dt != unit01.Q5_0 && dt != unit01.Q4_1 &&
		dt != unit01.Q4_K && dt != unit01.Q5_K && dt != unit01.Q6_K:
		return false
	}
	wb, ab := groupBytes(dt, true)
	n := len(w0) / wb
	if n == 0 {
		return false
	}
	_, _, _, _, _ = w0[n*wb-1], w1[n*wb-1], w2[n*wb-1], w3[n*wb-1], a[n*ab-1]
	kernel4(dt, &w0[0], &w1[0], &w2[0], &w3[0], &a[0], n, out)
	if r := n * wb; r < len(w0) {
		ra := a[n*ab:]
		out[0] += dotAsm(dt, w0[r:], ra)
		out[1] += dotAsm(dt, w1[r:], ra)
		out[2] += dotAsm(dt, w2[r:], ra)
		out[3] += dotAsm(dt, w3[r:], ra)
	}
	return true
}
