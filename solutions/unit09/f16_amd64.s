//go:build amd64 && !purego

#include "textflag.h"

// The F16 and BF16 kernels: dot products of half-precision weight rows
// with activations already rounded to half precision and held as float32
// (see f16.go), and the conversion of a weight row to float32 that the
// prefill's GEMM works on.
//
// A half widens to a float32 exactly, so each product is the float32
// product of the two rounded values, and the sums are float32 sums:
// llama.cpp's arithmetic for these weights, in another order. F16 widens
// with VCVTPH2PS (F16C on AVX2, AVX-512F on zmm); BF16 is the top half of
// a float32, so a zero-extension to 32 bits (VPMOVZXWD) and a shift left
// by 16 widen it.
//
// The 4-row kernels load each pair of activation vectors once for four
// rows, and keep two float32 sums per row (even and odd vectors) so that
// no FMA waits on the one before it. Like the other 4-row kernels
// (dot_amd64.s) they prefetch the next group of four rows.
//
// Registers: R8–R11 the rows, SI the activations, BX the offset in each
// row, CX steps left, DI the prefetch pointer, DX out.

// PF_SETUP points DI at w0 + 4·(w1 − w0): the next group of four rows of
// a QMatrix, whose rows lie one after another. PF_NEXT(PFn, …) prefetches n lines
// of it per step, into L1 if the group has at most PF_NEAR_MAX bytes and
// into L2 if more (why: dot_amd64.s).
#define PF_SETUP \
	MOVQ R9, DI ; \
	SUBQ R8, DI ; \
	SHLQ $2, DI ; \
	MOVQ DI, group-8(SP) ; \
	ADDQ R8, DI

#define PF_NEAR_MAX 16384

#define PF2(op) \
	op (DI) ; \
	op 64(DI)

#define PF4(op) \
	PF2(op) ; \
	op 128(DI) ; \
	op 192(DI)

#define PF_NEXT(lines, far, done) \
	CMPQ group-8(SP), $PF_NEAR_MAX ; \
	JA   far ; \
	lines(PREFETCHT0) ; \
	JMP  done ; \
far: \
	lines(PREFETCHT1) ; \
done:

#define LOAD4 \
	MOVQ w0+0(FP), R8 ; \
	MOVQ w1+8(FP), R9 ; \
	MOVQ w2+16(FP), R10 ; \
	MOVQ w3+24(FP), R11 ; \
	MOVQ a+32(FP), SI ; \
	MOVQ n+40(FP), CX

// ---------------------------------------------------------------------
// AVX-512: 32 elements a step (64 bytes of each row, one cache line).
// Z0, Z1 the activations; Z16–Z19 and Z20–Z23 the even and odd sums of
// rows 0–3; Z2, Z3 scratch.

// F16ROW512 adds one row's 32 products to its two sums.
#define F16ROW512(w, even, odd) \
	VCVTPH2PS   (w)(BX*1), Z2 ; \
	VCVTPH2PS   32(w)(BX*1), Z3 ; \
	VFMADD231PS Z0, Z2, even ; \
	VFMADD231PS Z1, Z3, odd

#define BF16ROW512(w, even, odd) \
	VPMOVZXWD   (w)(BX*1), Z2 ; \
	VPMOVZXWD   32(w)(BX*1), Z3 ; \
	VPSLLD      $16, Z2, Z2 ; \
	VPSLLD      $16, Z3, Z3 ; \
	VFMADD231PS Z0, Z2, even ; \
	VFMADD231PS Z1, Z3, odd

#define ZERO8_512 \
	VPXORD Z16, Z16, Z16 ; \
	VPXORD Z17, Z17, Z17 ; \
	VPXORD Z18, Z18, Z18 ; \
	VPXORD Z19, Z19, Z19 ; \
	VPXORD Z20, Z20, Z20 ; \
	VPXORD Z21, Z21, Z21 ; \
	VPXORD Z22, Z22, Z22 ; \
	VPXORD Z23, Z23, Z23

#define STEP4_512 \
	ADDQ       $256, DI ; \
	ADDQ       $64, BX ; \
	ADDQ       $128, SI ; \
	DECQ       CX

// HSUM4R adds four rows' even and odd sums (e0…e3, o0…o3; y0…y3 the
// lower halves of e0…e3), folds each row's sixteen lanes to eight, and
// adds neighbours across the rows (VHADDPS) until X0 holds
// [s0, s1, s2, s3], stored at off(DX). The 4×3 kernel folds each of its
// activation rows this way, so its sums are dot4's bit for bit.
#define HSUM4R(e0, e1, e2, e3, o0, o1, o2, o3, y0, y1, y2, y3, off) \
	VADDPS        o0, e0, e0 ; \
	VADDPS        o1, e1, e1 ; \
	VADDPS        o2, e2, e2 ; \
	VADDPS        o3, e3, e3 ; \
	VEXTRACTF64X4 $1, e0, Y0 ; \
	VADDPS        Y0, y0, Y0 ; \
	VEXTRACTF64X4 $1, e1, Y1 ; \
	VADDPS        Y1, y1, Y1 ; \
	VEXTRACTF64X4 $1, e2, Y2 ; \
	VADDPS        Y2, y2, Y2 ; \
	VEXTRACTF64X4 $1, e3, Y3 ; \
	VADDPS        Y3, y3, Y3 ; \
	VHADDPS       Y1, Y0, Y0 ; \
	VHADDPS       Y3, Y2, Y2 ; \
	VHADDPS       Y2, Y0, Y0 ; \
	VEXTRACTF128  $1, Y0, X1 ; \
	VADDPS        X1, X0, X0 ; \
	VMOVUPS       X0, off(DX)

// HSUM4_512 is HSUM4R for the 4-row kernels' sums, Z16–Z19 and Z20–Z23.
#define HSUM4_512 HSUM4R(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Y16, Y17, Y18, Y19, 0)

// HSUM1_512 adds the sums of one row (Z16, Z20) into X0.
#define HSUM1_512 \
	VADDPS        Z20, Z16, Z16 ; \
	VEXTRACTF64X4 $1, Z16, Y0 ; \
	VADDPS        Y0, Y16, Y0 ; \
	VEXTRACTF128  $1, Y0, X1 ; \
	VADDPS        X1, X0, X0 ; \
	VHADDPS       X0, X0, X0 ; \
	VHADDPS       X0, X0, X0

// func dot4F16AVX512(w0, w1, w2, w3 *byte, a *float32, n int, out *[4]float32)
// n ≥ 1 steps of 32 elements.
TEXT ·dot4F16AVX512(SB), NOSPLIT, $8-56
	LOAD4
	PF_SETUP
	ZERO8_512
	XORQ BX, BX

f16z4_loop:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	F16ROW512(R8, Z16, Z20)
	F16ROW512(R9, Z17, Z21)
	F16ROW512(R10, Z18, Z22)
	F16ROW512(R11, Z19, Z23)
	PF4(PREFETCHT1) // the next group: 4 × 64 bytes
	STEP4_512
	JNZ f16z4_loop

	MOVQ out+48(FP), DX
	HSUM4_512
	VZEROUPPER
	RET

// The 4×3 kernel: four F16 rows against three activation rows, each
// weight vector widened once for the three. Every (row, activation) pair
// keeps the even and odd sums of dot4F16AVX512 and is folded by the same
// HSUM4R steps, so each result is bit for bit the one dot4F16AVX512 gives:
// a row's product does not depend on the rows batched beside it.
// Z0–Z3 the widened weights of a half step, Z4–Z6 the activations;
// activation row r keeps its even sums in Z(8+8r)…Z(11+8r) and its odd
// sums in Z(12+8r)…Z(15+8r). R12, R13 the second and third activation
// rows, addressed at twice the weights' offset (a float32 per half).

#define F16W4(off) \
	VCVTPH2PS off(R8)(BX*1), Z0 ; \
	VCVTPH2PS off(R9)(BX*1), Z1 ; \
	VCVTPH2PS off(R10)(BX*1), Z2 ; \
	VCVTPH2PS off(R11)(BX*1), Z3

#define FMA4(a, s0, s1, s2, s3) \
	VFMADD231PS a, Z0, s0 ; \
	VFMADD231PS a, Z1, s1 ; \
	VFMADD231PS a, Z2, s2 ; \
	VFMADD231PS a, Z3, s3

// func dot4x3F16AVX512(w0, w1, w2, w3 *byte, a0, a1, a2 *float32, n int, out *[12]float32)
// n ≥ 1 steps of 32 elements; out[4r+i] = row i · activation row r.
TEXT ·dot4x3F16AVX512(SB), NOSPLIT, $8-72
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a0+32(FP), SI
	MOVQ a1+40(FP), R12
	MOVQ a2+48(FP), R13
	MOVQ n+56(FP), CX
	PF_SETUP
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	ZERO8_512
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26
	VPXORD Z27, Z27, Z27
	VPXORD Z28, Z28, Z28
	VPXORD Z29, Z29, Z29
	VPXORD Z30, Z30, Z30
	VPXORD Z31, Z31, Z31
	XORQ BX, BX

f16z43_loop:
	F16W4(0)
	VMOVUPS (SI)(BX*2), Z4
	VMOVUPS (R12)(BX*2), Z5
	VMOVUPS (R13)(BX*2), Z6
	FMA4(Z4, Z8, Z9, Z10, Z11)
	FMA4(Z5, Z16, Z17, Z18, Z19)
	FMA4(Z6, Z24, Z25, Z26, Z27)
	F16W4(32)
	VMOVUPS 64(SI)(BX*2), Z4
	VMOVUPS 64(R12)(BX*2), Z5
	VMOVUPS 64(R13)(BX*2), Z6
	FMA4(Z4, Z12, Z13, Z14, Z15)
	FMA4(Z5, Z20, Z21, Z22, Z23)
	FMA4(Z6, Z28, Z29, Z30, Z31)
	PF4(PREFETCHT1) // the next group, 4 × 64 bytes, into L2: in L1 it would push out the three activation rows
	ADDQ $256, DI
	ADDQ $64, BX
	DECQ CX
	JNZ  f16z43_loop

	MOVQ out+64(FP), DX
	HSUM4R(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Y8, Y9, Y10, Y11, 0)
	HSUM4R(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Y16, Y17, Y18, Y19, 16)
	HSUM4R(Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31, Y24, Y25, Y26, Y27, 32)
	VZEROUPPER
	RET

// func dot4BF16AVX512(w0, w1, w2, w3 *byte, a *float32, n int, out *[4]float32)
TEXT ·dot4BF16AVX512(SB), NOSPLIT, $8-56
	LOAD4
	PF_SETUP
	ZERO8_512
	XORQ BX, BX

bf16z4_loop:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	BF16ROW512(R8, Z16, Z20)
	BF16ROW512(R9, Z17, Z21)
	BF16ROW512(R10, Z18, Z22)
	BF16ROW512(R11, Z19, Z23)
	PF_NEXT(PF4, bf16z4_far, bf16z4_pf) // the next group: 4 × 64 bytes
	STEP4_512
	JNZ bf16z4_loop

	MOVQ out+48(FP), DX
	HSUM4_512
	VZEROUPPER
	RET

// func dotF16AVX512(w *byte, a *float32, n int) float32
TEXT ·dotF16AVX512(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   n+16(FP), CX
	VPXORD Z16, Z16, Z16
	VPXORD Z20, Z20, Z20
	XORQ   BX, BX

f16z1_loop:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	F16ROW512(R8, Z16, Z20)
	ADDQ    $64, BX
	ADDQ    $128, SI
	DECQ    CX
	JNZ     f16z1_loop

	HSUM1_512
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotBF16AVX512(w *byte, a *float32, n int) float32
TEXT ·dotBF16AVX512(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   n+16(FP), CX
	VPXORD Z16, Z16, Z16
	VPXORD Z20, Z20, Z20
	XORQ   BX, BX

bf16z1_loop:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	BF16ROW512(R8, Z16, Z20)
	ADDQ    $64, BX
	ADDQ    $128, SI
	DECQ    CX
	JNZ     bf16z1_loop

	HSUM1_512
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func widenF16AVX512(dst *float32, src *byte, n int)
// Widens n ≥ 1 steps of 32 halves to float32.
TEXT ·widenF16AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

wf16z_loop:
	VCVTPH2PS (SI), Z0
	VCVTPH2PS 32(SI), Z1
	VMOVUPS   Z0, (DI)
	VMOVUPS   Z1, 64(DI)
	ADDQ      $64, SI
	ADDQ      $128, DI
	DECQ      CX
	JNZ       wf16z_loop
	VZEROUPPER
	RET

// func widenBF16AVX512(dst *float32, src *byte, n int)
TEXT ·widenBF16AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

wbf16z_loop:
	VPMOVZXWD (SI), Z0
	VPMOVZXWD 32(SI), Z1
	VPSLLD    $16, Z0, Z0
	VPSLLD    $16, Z1, Z1
	VMOVUPS   Z0, (DI)
	VMOVUPS   Z1, 64(DI)
	ADDQ      $64, SI
	ADDQ      $128, DI
	DECQ      CX
	JNZ       wbf16z_loop
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// AVX2 + F16C: 16 elements a step (32 bytes of each row). Y0, Y1 the
// activations; Y8–Y11 and Y12–Y15 the even and odd sums of rows 0–3;
// Y2, Y3 scratch.

#define F16ROW256(w, even, odd) \
	VCVTPH2PS   (w)(BX*1), Y2 ; \
	VCVTPH2PS   16(w)(BX*1), Y3 ; \
	VFMADD231PS Y0, Y2, even ; \
	VFMADD231PS Y1, Y3, odd

#define BF16ROW256(w, even, odd) \
	VPMOVZXWD   (w)(BX*1), Y2 ; \
	VPMOVZXWD   16(w)(BX*1), Y3 ; \
	VPSLLD      $16, Y2, Y2 ; \
	VPSLLD      $16, Y3, Y3 ; \
	VFMADD231PS Y0, Y2, even ; \
	VFMADD231PS Y1, Y3, odd

#define ZERO8_256 \
	VXORPS Y8, Y8, Y8 ; \
	VXORPS Y9, Y9, Y9 ; \
	VXORPS Y10, Y10, Y10 ; \
	VXORPS Y11, Y11, Y11 ; \
	VXORPS Y12, Y12, Y12 ; \
	VXORPS Y13, Y13, Y13 ; \
	VXORPS Y14, Y14, Y14 ; \
	VXORPS Y15, Y15, Y15

#define STEP4_256 \
	ADDQ       $128, DI ; \
	ADDQ       $32, BX ; \
	ADDQ       $64, SI ; \
	DECQ       CX

#define HSUM4_256 \
	VADDPS       Y12, Y8, Y8 ; \
	VADDPS       Y13, Y9, Y9 ; \
	VADDPS       Y14, Y10, Y10 ; \
	VADDPS       Y15, Y11, Y11 ; \
	VHADDPS      Y9, Y8, Y0 ; \
	VHADDPS      Y11, Y10, Y1 ; \
	VHADDPS      Y1, Y0, Y0 ; \
	VEXTRACTF128 $1, Y0, X1 ; \
	VADDPS       X1, X0, X0 ; \
	VMOVUPS      X0, (DX)

#define HSUM1_256 \
	VADDPS       Y12, Y8, Y8 ; \
	VEXTRACTF128 $1, Y8, X0 ; \
	VADDPS       X0, X8, X0 ; \
	VHADDPS      X0, X0, X0 ; \
	VHADDPS      X0, X0, X0

// func dot4F16AVX2(w0, w1, w2, w3 *byte, a *float32, n int, out *[4]float32)
// n ≥ 1 steps of 16 elements.
TEXT ·dot4F16AVX2(SB), NOSPLIT, $8-56
	LOAD4
	PF_SETUP
	ZERO8_256
	XORQ BX, BX

f16y4_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	F16ROW256(R8, Y8, Y12)
	F16ROW256(R9, Y9, Y13)
	F16ROW256(R10, Y10, Y14)
	F16ROW256(R11, Y11, Y15)
	PF_NEXT(PF2, f16y4_far, f16y4_pf) // the next group: 4 × 32 bytes
	STEP4_256
	JNZ f16y4_loop

	MOVQ out+48(FP), DX
	HSUM4_256
	VZEROUPPER
	RET

// func dot4BF16AVX2(w0, w1, w2, w3 *byte, a *float32, n int, out *[4]float32)
TEXT ·dot4BF16AVX2(SB), NOSPLIT, $8-56
	LOAD4
	PF_SETUP
	ZERO8_256
	XORQ BX, BX

bf16y4_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	BF16ROW256(R8, Y8, Y12)
	BF16ROW256(R9, Y9, Y13)
	BF16ROW256(R10, Y10, Y14)
	BF16ROW256(R11, Y11, Y15)
	PF_NEXT(PF2, bf16y4_far, bf16y4_pf) // the next group: 4 × 32 bytes
	STEP4_256
	JNZ bf16y4_loop

	MOVQ out+48(FP), DX
	HSUM4_256
	VZEROUPPER
	RET

// func dotF16AVX2(w *byte, a *float32, n int) float32
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   n+16(FP), CX
	VXORPS Y8, Y8, Y8
	VXORPS Y12, Y12, Y12
	XORQ   BX, BX

f16y1_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	F16ROW256(R8, Y8, Y12)
	ADDQ    $32, BX
	ADDQ    $64, SI
	DECQ    CX
	JNZ     f16y1_loop

	HSUM1_256
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotBF16AVX2(w *byte, a *float32, n int) float32
TEXT ·dotBF16AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   n+16(FP), CX
	VXORPS Y8, Y8, Y8
	VXORPS Y12, Y12, Y12
	XORQ   BX, BX

bf16y1_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	BF16ROW256(R8, Y8, Y12)
	ADDQ    $32, BX
	ADDQ    $64, SI
	DECQ    CX
	JNZ     bf16y1_loop

	HSUM1_256
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func widenF16AVX2(dst *float32, src *byte, n int)
// Widens n ≥ 1 steps of 16 halves to float32.
TEXT ·widenF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

wf16y_loop:
	VCVTPH2PS (SI), Y0
	VCVTPH2PS 16(SI), Y1
	VMOVUPS   Y0, (DI)
	VMOVUPS   Y1, 32(DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       wf16y_loop
	VZEROUPPER
	RET

// func widenBF16AVX2(dst *float32, src *byte, n int)
TEXT ·widenBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

wbf16y_loop:
	VPMOVZXWD (SI), Y0
	VPMOVZXWD 16(SI), Y1
	VPSLLD    $16, Y0, Y0
	VPSLLD    $16, Y1, Y1
	VMOVUPS   Y0, (DI)
	VMOVUPS   Y1, 32(DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       wbf16y_loop
	VZEROUPPER
	RET

// func cpuid1ECX() uint32
// CPUID leaf 1's ECX, whose bit 29 is F16C: golang.org/x/sys/cpu does
// not report it.
TEXT ·cpuid1ECX(SB), NOSPLIT, $0-4
	MOVL  $1, AX
	XORL  CX, CX
	CPUID
	MOVL  CX, ret+0(FP)
	RET

// ---------------------------------------------------------------------
// Rounding the activations, 16 float32s a step, in AVX2 (and F16C) on
// either level: it is a small part of a product's work.

// func roundF16AVX2(dst, src *float32, n int)
// dst = src rounded to F16, ties to even (VCVTPS2PH's rounding control 0),
// and widened back: unit01.F32ToF16 then F16ToF32.
TEXT ·roundF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

rf16_loop:
	VMOVUPS   (SI), Y0
	VMOVUPS   32(SI), Y1
	VCVTPS2PH $0, Y0, X0
	VCVTPS2PH $0, Y1, X1
	VCVTPH2PS X0, Y0
	VCVTPH2PS X1, Y1
	VMOVUPS   Y0, (DI)
	VMOVUPS   Y1, 32(DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       rf16_loop
	VZEROUPPER
	RET

// BF16ROUND rounds the float32 bits in y to BF16 as unit01.F32ToBF16
// does: add 0x7FFF plus the lowest kept bit and cut the low 16 bits (ties
// to even); a NaN instead keeps its top bits with the quiet bit set.
// Constants: Y15 0x7FFF, Y14 1, Y13 0x7FFFFFFF, Y12 0x7F800000,
// Y11 0xFFFF0000, Y10 0x00400000. Scratch: Y2–Y4.
#define BF16ROUND(y) \
	VPSRLD    $16, y, Y2 ; \
	VPAND     Y14, Y2, Y2 ; \
	VPADDD    Y15, Y2, Y2 ; \
	VPADDD    y, Y2, Y2 /* rounded, low half still to cut */ ; \
	VPAND     Y13, y, Y3 ; \
	VPCMPGTD  Y12, Y3, Y3 /* |x| > +Inf: NaN */ ; \
	VPOR      Y10, y, Y4 /* the quiet NaN */ ; \
	VPBLENDVB Y3, Y4, Y2, y ; \
	VPAND     Y11, y, y

#define BROADCAST(v, y) \
	MOVL         v, AX ; \
	VMOVD        AX, X2 ; \
	VPBROADCASTD X2, y

// func roundBF16AVX2(dst, src *float32, n int)
TEXT ·roundBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	BROADCAST($0x7fff, Y15)
	BROADCAST($1, Y14)
	BROADCAST($0x7fffffff, Y13)
	BROADCAST($0x7f800000, Y12)
	BROADCAST($0xffff0000, Y11)
	BROADCAST($0x00400000, Y10)

rbf16_loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	BF16ROUND(Y0)
	BF16ROUND(Y1)
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     rbf16_loop
	VZEROUPPER
	RET
