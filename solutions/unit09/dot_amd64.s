//go:build amd64 && !purego

#include "textflag.h"

// The AVX-512 VNNI kernels: dot products of Q4_0, Q8_0, Q4_K and Q6_K
// weights with quantized activations (Q8_0 for the first two: 34-byte
// blocks, f16 d_a and int8 a[32]; Q8_K for the K-quants: 292 bytes per
// 256, f32 d_a, int8 a[256] and int16 bsums[16], the sums of each 16).
// dot_avx2_amd64.s holds the same on AVX2.
//
// Every kernel multiplies quants in integers, exactly, and converts to
// float32 once per block (or super-block), multiplying by the scales
// d_w·d_a there. VPDPBUSD does the integer work: it multiplies 64
// unsigned bytes by 64 signed bytes and adds each four neighbouring
// products into one of sixteen 32-bit sums, which it accumulates. Weights
// whose quants are signed or offset (q − 8, q − 32, int8) are made
// unsigned, and the offset taken out through sums of the activations.
// Each row keeps sixteen float32 partial sums, added together only at the
// end (HSUM4, HSUM1).
//
// The 4-row kernels prepare each group of activations once for four
// rows: the decode step of a model runs almost entirely through them, and
// reaches memory's speed only if the work per weight byte is small.
//
// Registers, all kernels:
//	R8–R11  the rows w0…w3 (R8 alone in the 1-row kernels)
//	SI      the activations, advanced one group per step
//	BX      the offset of the current group in each weight row
//	CX      groups left
//	DI      the prefetch pointer (4-row kernels)
//	Z16–Z19 the float sums of rows 0–3
//	Z20–Z31 constants (and the K-quants' prepared activations)
//	Z0–Z15  scratch (and the prepared activations of Q4_0 and Q8_0)

// PF_SETUP points DI at the rows four further on than w0, the next group
// of four: a QMatrix stores its rows one after another, so the next group
// starts 4·(w1 − w0) bytes after w0 and fills as many bytes as this one.
// The 4-row loops prefetch it, one cache line per 64 bytes read from this
// group (PF_NEXT with PFn: n lines per step), so that memory keeps working when
// the loop moves on to four new streams, which the processor's own
// prefetchers take a while to pick up. (On the boss's matrix it lifts Q4_0
// from half of the read bandwidth to over 80% on a Zen 5.) Rows laid out
// otherwise make the prefetches useless, not wrong: a prefetch never
// faults.
//
// Where the lines go depends on the group's size, which PF_SETUP keeps in
// the frame (group-8(SP)). A small group is prefetched into L1
// (PREFETCHT0). A group larger than PF_NEAR_MAX is prefetched into L2
// (PREFETCHT1): a whole group ahead, L1 would have to hold the next group,
// the rest of this one and the activations, and on a CPU with a 32 KB L1
// (Zen 4) the lines were evicted before use. Measured on a Zen 4, 4-row
// Q4_0 products: rows of 2048 columns (a 4.6 KB group) ran at 24.6 GB/s
// into L1 and 16.9 into L2; rows of 8192 (18 KB) at 16.0 into L1 and
// 21.0 into L2; 5632 (12.7 KB) at 22.9 and 22.6.
#define PF_SETUP \
	MOVQ R9, DI ; \
	SUBQ R8, DI ; \
	SHLQ $2, DI ; \
	MOVQ DI, group-8(SP) ; \
	ADDQ R8, DI

#define PF_NEAR_MAX 16384

#define PF5(op) \
	op (DI) ; \
	op 64(DI) ; \
	op 128(DI) ; \
	op 192(DI) ; \
	op 256(DI)

#define PF9(op) \
	PF5(op) ; \
	op 320(DI) ; \
	op 384(DI) ; \
	op 448(DI) ; \
	op 512(DI)

#define PF14(op) \
	PF9(op) ; \
	op 576(DI) ; \
	op 640(DI) ; \
	op 704(DI) ; \
	op 768(DI) ; \
	op 832(DI)

// PF_NEXT(lines, far, done) prefetches the step's lines (PF5, PF9 or
// PF14) into L1 or L2 by the group's size; far and done are labels of its
// own, one pair per loop.
#define PF_NEXT(lines, far, done) \
	CMPQ group-8(SP), $PF_NEAR_MAX ; \
	JA   far ; \
	lines(PREFETCHT0) ; \
	JMP  done ; \
far: \
	lines(PREFETCHT1) ; \
done:

// HSUM4 adds the sixteen lanes of each of Z16–Z19 and stores the four sums
// at (DX): fold each to eight lanes, then VHADDPS (which has only a VEX
// form, hence Y0–Y3) adds neighbours across the rows until each 128-bit
// half holds [s0, s1, s2, s3] in parts, and the two halves are added.
#define HSUM4 \
	VEXTRACTF64X4 $1, Z16, Y0 ; \
	VADDPS        Y0, Y16, Y0 ; \
	VEXTRACTF64X4 $1, Z17, Y1 ; \
	VADDPS        Y1, Y17, Y1 ; \
	VEXTRACTF64X4 $1, Z18, Y2 ; \
	VADDPS        Y2, Y18, Y2 ; \
	VEXTRACTF64X4 $1, Z19, Y3 ; \
	VADDPS        Y3, Y19, Y3 ; \
	VHADDPS       Y1, Y0, Y0 /* [s0 s0 s1 s1] in each 128-bit half */ ; \
	VHADDPS       Y3, Y2, Y2 /* [s2 s2 s3 s3] */ ; \
	VHADDPS       Y2, Y0, Y0 /* [s0 s1 s2 s3] */ ; \
	VEXTRACTF128  $1, Y0, X1 ; \
	VADDPS        X1, X0, X0 ; \
	VMOVUPS       X0, (DX)

// HSUM1 adds the sixteen lanes of Z16 into X0.
#define HSUM1 \
	VEXTRACTF64X4 $1, Z16, Y0 ; \
	VADDPS        Y0, Y16, Y0 ; \
	VEXTRACTF128  $1, Y0, X1 ; \
	VADDPS        X1, X0, X0 ; \
	VHADDPS       X0, X0, X0 ; \
	VHADDPS       X0, X0, X0

#define ZERO_ACCS \
	VPXORD Z16, Z16, Z16 ; \
	VPXORD Z17, Z17, Z17 ; \
	VPXORD Z18, Z18, Z18 ; \
	VPXORD Z19, Z19, Z19

// ---------------------------------------------------------------------
// Q4_0 × Q8_0, one row: two blocks (64 elements) per step.
//
// A step reads the pair of weight blocks A, B (36 bytes) and the pair of
// activation blocks (68 bytes). The nibbles unpack as
//
//	Y4 = [qs_A | qs_B]                        (2 × 16 bytes)
//	Z4 = [qs_A | qs_B | qs_A>>4 | qs_B>>4] & 0x0F
//	   = [A 0–15 | B 0–15 | A 16–31 | B 16–31]
//
// and the activations are arranged in the same order (Z0). VPDPBUSD
// multiplies the unsigned nibbles q by the signed a: sums 0–3 and 8–11
// belong to block A, 4–7 and 12–15 to block B. The −8 of each quant is
// taken out with the activations, Σ(q−8)·a = Σq·a − 8·Σa: the sums start
// from −8·Σa (Z1, itself a VPDPBUSD of 8s with the activations). VPERMW,
// a word shuffle, gathers the f16 scales into the lanes of their blocks.
//
// Constants: Z31 = 0x0F bytes, Z30 = 0x08 bytes, Y29 = q4scaleW,
// Z28 = q4scaleA, Z27 = 0. Per step: Z0 activations, Z1 −8·Σa, Z2 d_a.

// q4scaleW: d of block A is word 0 of the pair, d of B word 9, spread
// [A ×4, B ×4, A ×4, B ×4].
DATA q4scaleW<>+0(SB)/8, $0x0000000000000000
DATA q4scaleW<>+8(SB)/8, $0x0009000900090009
DATA q4scaleW<>+16(SB)/8, $0x0000000000000000
DATA q4scaleW<>+24(SB)/8, $0x0009000900090009
GLOBL q4scaleW<>(SB), RODATA|NOPTR, $32

// q4scaleA: the same for a pair of activation blocks, d of B at word 17.
DATA q4scaleA<>+0(SB)/8, $0x0000000000000000
DATA q4scaleA<>+8(SB)/8, $0x0011001100110011
DATA q4scaleA<>+16(SB)/8, $0x0000000000000000
DATA q4scaleA<>+24(SB)/8, $0x0011001100110011
DATA q4scaleA<>+32(SB)/8, $0
DATA q4scaleA<>+40(SB)/8, $0
DATA q4scaleA<>+48(SB)/8, $0
DATA q4scaleA<>+56(SB)/8, $0
GLOBL q4scaleA<>(SB), RODATA|NOPTR, $64

#define Q4_0VNNI_SETUP \
	MOVL         $0x0F, AX ; \
	VPBROADCASTB AX, Z31 ; \
	MOVL         $0x08, AX ; \
	VPBROADCASTB AX, Z30 ; \
	VMOVDQU64    q4scaleW<>(SB), Y29 ; \
	VMOVDQU64    q4scaleA<>(SB), Z28 ; \
	VPXORD       Z27, Z27, Z27

// Q4_0VNNI_ACTS prepares the activation pair at SI: Z0, Z1, Z2.
#define Q4_0VNNI_ACTS \
	VMOVDQU64    2(SI), Y0 /* [A 0–15 | A 16–31] */ ; \
	VINSERTI64X4 $1, 36(SI), Z0, Z0 /* [A 0–15 | A 16–31 | B 0–15 | B 16–31] */ ; \
	VSHUFI64X2   $0xD8, Z0, Z0, Z0 /* [A 0–15 | B 0–15 | A 16–31 | B 16–31] */ ; \
	VPXORD       Z1, Z1, Z1 ; \
	VPDPBUSD     Z0, Z30, Z1 /* 8·Σa, four a per lane */ ; \
	VPSUBD       Z1, Z27, Z1 /* −8·Σa */ ; \
	VPERMW       (SI), Z28, Z2 /* f16 d_a per lane */ ; \
	VCVTPH2PS    Y2, Z2

// Q4_0VNNI_ROW adds the step's products of the row at w to acc.
#define Q4_0VNNI_ROW(w, acc) \
	VMOVDQU      2(w)(BX*1), X4 /* qs_A */ ; \
	VINSERTI128  $1, 20(w)(BX*1), Y4, Y4 /* [qs_A | qs_B] */ ; \
	VPSRLW       $4, Y4, Y5 /* the high nibbles moved down */ ; \
	VINSERTI64X4 $1, Y5, Z4, Z4 ; \
	VPANDD       Z31, Z4, Z4 /* the 64 quants, in Z0's order */ ; \
	VMOVDQA64    Z1, Z5 ; \
	VPDPBUSD     Z0, Z4, Z5 /* Σ(q−8)·a, four products per lane */ ; \
	VCVTDQ2PS    Z5, Z5 ; \
	VPERMW       (w)(BX*1), Y29, Y6 /* f16 d_w per lane */ ; \
	VCVTPH2PS    Y6, Z6 ; \
	VMULPS       Z2, Z6, Z6 /* d_w·d_a */ ; \
	VFMADD231PS  Z6, Z5, acc

// func dotQ4_0VNNI(w, a *byte, pairs int) float32
// pairs ≥ 1 pairs of Q4_0 blocks from w, times as many pairs of Q8_0
// blocks from a.
TEXT ·dotQ4_0VNNI(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   pairs+16(FP), CX
	Q4_0VNNI_SETUP
	VPXORD Z16, Z16, Z16
	XORQ   BX, BX

q4_0v1_loop:
	Q4_0VNNI_ACTS
	Q4_0VNNI_ROW(R8, Z16)
	ADDQ $36, BX
	ADDQ $68, SI
	DECQ CX
	JNZ  q4_0v1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q4_0 × Q8_0, four rows: four blocks (128 elements, 72 bytes of each
// row) per step, so that one conversion and one FMA serve 128 products.
//
// The blocks are 18 bytes, so every field starts on an even byte, and a
// word shuffle of two tables, bytes 0–63 and 8–71 of the four blocks
// (VPERMT2W, indices q4gather), collects their qs arrays into one
// register, [qs_A | qs_B | qs_C | qs_D]; another of bytes 0–63 (VPERMW,
// q4scale4W) their scales. The low nibbles are then elements 0–15 of each
// block and the high nibbles elements 16–31:
//
//	Z4 = [A 0–15 | B 0–15 | C 0–15 | D 0–15]
//	Z5 = [A 16–31 | B 16–31 | C 16–31 | D 16–31]
//
// The activations are arranged to match once per step (Z0, Z1). Both
// VPDPBUSDs add into the same sums, since sums 0–3 belong to block A in
// both, 4–7 to B, 8–11 to C and 12–15 to D.
//
// Constants: Z31 = 0x0F bytes, Z30 = 0x08 bytes, Z29 = q4gather,
// Z28 = q4scale4W, Z26 = q4scale4A, Z27 = 0. Per step: Z0, Z1 the
// activations, Z2 −8·Σa, Z3 d_a.

// q4gather: A's qs is words 1–8 of the first table, B's 10–17, C's 19–26;
// D's (bytes 56–71) words 24–31 of the second, indices 56–63.
DATA q4gather<>+0(SB)/8, $0x0004000300020001
DATA q4gather<>+8(SB)/8, $0x0008000700060005
DATA q4gather<>+16(SB)/8, $0x000d000c000b000a
DATA q4gather<>+24(SB)/8, $0x00110010000f000e
DATA q4gather<>+32(SB)/8, $0x0016001500140013
DATA q4gather<>+40(SB)/8, $0x001a001900180017
DATA q4gather<>+48(SB)/8, $0x003b003a00390038
DATA q4gather<>+56(SB)/8, $0x003f003e003d003c
GLOBL q4gather<>(SB), RODATA|NOPTR, $64

// q4scale4W: the d of blocks A–D are words 0, 9, 18 and 27, each spread
// over its block's four sums.
DATA q4scale4W<>+0(SB)/8, $0x0000000000000000
DATA q4scale4W<>+8(SB)/8, $0x0009000900090009
DATA q4scale4W<>+16(SB)/8, $0x0012001200120012
DATA q4scale4W<>+24(SB)/8, $0x001b001b001b001b
DATA q4scale4W<>+32(SB)/8, $0
DATA q4scale4W<>+40(SB)/8, $0
DATA q4scale4W<>+48(SB)/8, $0
DATA q4scale4W<>+56(SB)/8, $0
GLOBL q4scale4W<>(SB), RODATA|NOPTR, $64

// q4scale4A: the d of four activation blocks, bytes 0, 34, 68 and 102,
// from the tables bytes 0–63 and 64–127: words 0, 17, 34 and 51.
DATA q4scale4A<>+0(SB)/8, $0x0000000000000000
DATA q4scale4A<>+8(SB)/8, $0x0011001100110011
DATA q4scale4A<>+16(SB)/8, $0x0022002200220022
DATA q4scale4A<>+24(SB)/8, $0x0033003300330033
DATA q4scale4A<>+32(SB)/8, $0
DATA q4scale4A<>+40(SB)/8, $0
DATA q4scale4A<>+48(SB)/8, $0
DATA q4scale4A<>+56(SB)/8, $0
GLOBL q4scale4A<>(SB), RODATA|NOPTR, $64

// Q4_0VNNI4_ACTS prepares the four activation blocks at SI: Z0–Z3.
#define Q4_0VNNI4_ACTS \
	VMOVDQU64    (SI), Z3 ; \
	VPERMT2W     64(SI), Z26, Z3 /* f16 d_a, four lanes per block */ ; \
	VCVTPH2PS    Y3, Z3 ; \
	VMOVDQU      2(SI), X0 ; \
	VINSERTI32X4 $1, 36(SI), Z0, Z0 ; \
	VINSERTI32X4 $2, 70(SI), Z0, Z0 ; \
	VINSERTI32X4 $3, 104(SI), Z0, Z0 /* elements 0–15 of each block */ ; \
	VMOVDQU      18(SI), X1 ; \
	VINSERTI32X4 $1, 52(SI), Z1, Z1 ; \
	VINSERTI32X4 $2, 86(SI), Z1, Z1 ; \
	VINSERTI32X4 $3, 120(SI), Z1, Z1 /* elements 16–31 */ ; \
	VPXORD       Z2, Z2, Z2 ; \
	VPDPBUSD     Z0, Z30, Z2 ; \
	VPDPBUSD     Z1, Z30, Z2 /* 8·Σa, eight a per lane */ ; \
	VPSUBD       Z2, Z27, Z2 /* −8·Σa */

// Q4_0VNNI4_ROW adds the step's products of the row at w to acc.
#define Q4_0VNNI4_ROW(w, acc) \
	VMOVDQU64    (w)(BX*1), Z4 /* bytes 0–63 of the four blocks */ ; \
	VPERMW       Z4, Z28, Z6 /* f16 d_w, four lanes per block */ ; \
	VPERMT2W     8(w)(BX*1), Z29, Z4 /* [qs_A | qs_B | qs_C | qs_D] */ ; \
	VPSRLW       $4, Z4, Z5 ; \
	VPANDD       Z31, Z4, Z4 /* elements 0–15 of each block */ ; \
	VPANDD       Z31, Z5, Z5 /* elements 16–31 */ ; \
	VMOVDQA64    Z2, Z7 ; \
	VPDPBUSD     Z0, Z4, Z7 ; \
	VPDPBUSD     Z1, Z5, Z7 /* Σ(q−8)·a, eight products per lane */ ; \
	VCVTDQ2PS    Z7, Z7 ; \
	VCVTPH2PS    Y6, Z6 ; \
	VMULPS       Z3, Z6, Z6 /* d_w·d_a */ ; \
	VFMADD231PS  Z6, Z7, acc

// func dot4Q4_0VNNI(w0, w1, w2, w3, a *byte, quads int, out *[4]float32)
// quads ≥ 1 groups of four Q4_0 blocks from each row, times as many groups
// of four Q8_0 blocks from a; out gets the four dot products.
TEXT ·dot4Q4_0VNNI(SB), NOSPLIT, $8-56
	MOVQ         w0+0(FP), R8
	MOVQ         w1+8(FP), R9
	MOVQ         w2+16(FP), R10
	MOVQ         w3+24(FP), R11
	MOVQ         a+32(FP), SI
	MOVQ         quads+40(FP), CX
	MOVL         $0x0F, AX
	VPBROADCASTB AX, Z31
	MOVL         $0x08, AX
	VPBROADCASTB AX, Z30
	VMOVDQU64    q4gather<>(SB), Z29
	VMOVDQU64    q4scale4W<>(SB), Z28
	VMOVDQU64    q4scale4A<>(SB), Z26
	VPXORD       Z27, Z27, Z27
	PF_SETUP
	ZERO_ACCS
	XORQ         BX, BX

q4_0v4_loop:
	Q4_0VNNI4_ACTS
	Q4_0VNNI4_ROW(R8, Z16)
	Q4_0VNNI4_ROW(R9, Z17)
	Q4_0VNNI4_ROW(R10, Z18)
	Q4_0VNNI4_ROW(R11, Z19)
	PF_NEXT(PF5, q4_0v4_far, q4_0v4_pf) // the next group: 4 × 72 bytes
	ADDQ       $288, DI
	ADDQ       $72, BX
	ADDQ       $136, SI
	DECQ       CX
	JNZ        q4_0v4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// Q8_0 × Q8_0: two blocks per step.
//
// Weights and activations share the layout, so a pair of blocks loads as
// [A 0–31 | B 0–31] for both. The weights, signed, are shifted to q+128
// (flipping their sign bits, VPXORD 0x80) to be VPDPBUSD's unsigned
// operand, and Σ(q+128)·a − 128·Σa = Σq·a: the sums start from −128·Σa,
// once per step for all the rows. Sums 0–7 belong to block A, 8–15 to B.
//
// Constants: Z30 = 0x80 bytes, Z28 = q8scale, Z27 = 0. Per step: Z0
// activations, Z1 −128·Σa, Z2 d_a.

// q8scale: d of block A is word 0 of a pair (weights or activations), d
// of B word 17, spread [A ×8, B ×8].
DATA q8scale<>+0(SB)/8, $0x0000000000000000
DATA q8scale<>+8(SB)/8, $0x0000000000000000
DATA q8scale<>+16(SB)/8, $0x0011001100110011
DATA q8scale<>+24(SB)/8, $0x0011001100110011
DATA q8scale<>+32(SB)/8, $0
DATA q8scale<>+40(SB)/8, $0
DATA q8scale<>+48(SB)/8, $0
DATA q8scale<>+56(SB)/8, $0
GLOBL q8scale<>(SB), RODATA|NOPTR, $64

#define Q8_0VNNI_SETUP \
	MOVL         $0x80, AX ; \
	VPBROADCASTB AX, Z30 ; \
	VMOVDQU64    q8scale<>(SB), Z28 ; \
	VPXORD       Z27, Z27, Z27

#define Q8_0VNNI_ACTS \
	VMOVDQU64    2(SI), Y0 ; \
	VINSERTI64X4 $1, 36(SI), Z0, Z0 /* [A 0–31 | B 0–31] */ ; \
	VPXORD       Z1, Z1, Z1 ; \
	VPDPBUSD     Z0, Z30, Z1 /* 128·Σa, four a per lane */ ; \
	VPSUBD       Z1, Z27, Z1 /* −128·Σa */ ; \
	VPERMW       (SI), Z28, Z2 /* f16 d_a per lane */ ; \
	VCVTPH2PS    Y2, Z2

#define Q8_0VNNI_ROW(w, acc) \
	VMOVDQU64    2(w)(BX*1), Y4 ; \
	VINSERTI64X4 $1, 36(w)(BX*1), Z4, Z4 /* [A 0–31 | B 0–31] */ ; \
	VPXORD       Z30, Z4, Z4 /* q+128, unsigned */ ; \
	VMOVDQA64    Z1, Z5 ; \
	VPDPBUSD     Z0, Z4, Z5 /* Σq·a, four products per lane */ ; \
	VCVTDQ2PS    Z5, Z5 ; \
	VPERMW       (w)(BX*1), Z28, Z6 /* f16 d_w per lane */ ; \
	VCVTPH2PS    Y6, Z6 ; \
	VMULPS       Z2, Z6, Z6 /* d_w·d_a */ ; \
	VFMADD231PS  Z6, Z5, acc

// func dot4Q8_0VNNI(w0, w1, w2, w3, a *byte, pairs int, out *[4]float32)
// pairs ≥ 1 pairs of Q8_0 blocks from each row and from a.
TEXT ·dot4Q8_0VNNI(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ pairs+40(FP), CX
	Q8_0VNNI_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q8_0v4_loop:
	Q8_0VNNI_ACTS
	Q8_0VNNI_ROW(R8, Z16)
	Q8_0VNNI_ROW(R9, Z17)
	Q8_0VNNI_ROW(R10, Z18)
	Q8_0VNNI_ROW(R11, Z19)
	PF_NEXT(PF5, q8_0v4_far, q8_0v4_pf) // the next group: 4 × 68 bytes
	ADDQ       $272, DI
	ADDQ       $68, BX
	ADDQ       $68, SI
	DECQ       CX
	JNZ        q8_0v4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ8_0VNNI(w, a *byte, pairs int) float32
// The same for one row.
TEXT ·dotQ8_0VNNI(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   pairs+16(FP), CX
	Q8_0VNNI_SETUP
	VPXORD Z16, Z16, Z16
	XORQ   BX, BX

q8_0v1_loop:
	Q8_0VNNI_ACTS
	Q8_0VNNI_ROW(R8, Z16)
	ADDQ $68, BX
	ADDQ $68, SI
	DECQ CX
	JNZ  q8_0v1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q4_K × Q8_K: one super-block (256 elements, 144 bytes) per step.
//
// The 128 bytes of quants are four chunks of 32: chunk c holds sub-block
// 2c in its low nibbles and 2c+1 in its high ones. Two 64-byte loads
// and the masks give four registers of 64 quants,
//
//	Z0 = sub-blocks 0 | 2    Z1 = 1 | 3    Z2 = 4 | 6    Z3 = 5 | 7
//
// (each half of a register one sub-block), and the activations are
// arranged the same way once per step, Z20–Z23. Then
//
//	Σ_s sc_s·Σ q·a − Σ_s m_s·(bsums[2s] + bsums[2s+1])
//
// is computed in integers, the first sum in the low half of a register
// and the second in its high half, and one FMA with [d·d_a | −dmin·d_a]
// adds both to the row's float sums.
//
// Each of the four VPDPBUSDs leaves sixteen sums of four products, small
// numbers (|4·15·128| < 2¹⁵): VPACKSSDW packs the sums of two registers
// into 16-bit words, lane group by lane group,
//
//	[s0 ×4, s1 ×4 | s0 ×4, s1 ×4 | s2 ×4, s3 ×4 | s2 ×4, s3 ×4]
//
// (s the sub-block of each word), and VPMADDWD multiplies the words by
// their sub-blocks' scales, spread the same way (q4kSc01), and adds
// neighbours: two registers of sums scaled by two instructions. VPDPWSSD
// does the same for sub-blocks 4–7 and adds.
//
// The scales and mins are unpacked as scaleMin does, with 32-bit integer
// arithmetic on four bytes at a time (q4kScales), into the bytes
// [sc0–7, m0–7], widened to words 0–15 of Z8.
//
// Constants: Z31 = 0x0F bytes, Z30 = q4kSc01, Z29 = q4kSc45, Y28 = q4kMins,
// Y27 = q4kD, Z24 = [+1 ×8 | −1 ×8]. Per step: Z20–Z23 activations,
// Y25 bsums, Z26 [d_a ×8 | −d_a ×8].

// q4kSc01: words for lanes 0–1 [sc0 ×4, sc1 ×4], lanes 2–3 [sc2 ×4, sc3 ×4]
// (scale s is word s).
DATA q4kSc01<>+0(SB)/8, $0x0000000000000000
DATA q4kSc01<>+8(SB)/8, $0x0001000100010001
DATA q4kSc01<>+16(SB)/8, $0x0000000000000000
DATA q4kSc01<>+24(SB)/8, $0x0001000100010001
DATA q4kSc01<>+32(SB)/8, $0x0002000200020002
DATA q4kSc01<>+40(SB)/8, $0x0003000300030003
DATA q4kSc01<>+48(SB)/8, $0x0002000200020002
DATA q4kSc01<>+56(SB)/8, $0x0003000300030003
GLOBL q4kSc01<>(SB), RODATA|NOPTR, $64

// q4kSc45: the same for sub-blocks 4–7.
DATA q4kSc45<>+0(SB)/8, $0x0004000400040004
DATA q4kSc45<>+8(SB)/8, $0x0005000500050005
DATA q4kSc45<>+16(SB)/8, $0x0004000400040004
DATA q4kSc45<>+24(SB)/8, $0x0005000500050005
DATA q4kSc45<>+32(SB)/8, $0x0006000600060006
DATA q4kSc45<>+40(SB)/8, $0x0007000700070007
DATA q4kSc45<>+48(SB)/8, $0x0006000600060006
DATA q4kSc45<>+56(SB)/8, $0x0007000700070007
GLOBL q4kSc45<>(SB), RODATA|NOPTR, $64

// q4kMins: [m0, m0, m1, m1, …, m7, m7], to meet bsums[2s] and bsums[2s+1]
// (min s is word 8+s).
DATA q4kMins<>+0(SB)/8, $0x0009000900080008
DATA q4kMins<>+8(SB)/8, $0x000b000b000a000a
DATA q4kMins<>+16(SB)/8, $0x000d000d000c000c
DATA q4kMins<>+24(SB)/8, $0x000f000f000e000e
GLOBL q4kMins<>(SB), RODATA|NOPTR, $32

// q4kD: the super-block's f16 d (word 0) eight times, then dmin (word 1).
DATA q4kD<>+0(SB)/8, $0x0000000000000000
DATA q4kD<>+8(SB)/8, $0x0000000000000000
DATA q4kD<>+16(SB)/8, $0x0001000100010001
DATA q4kD<>+24(SB)/8, $0x0001000100010001
GLOBL q4kD<>(SB), RODATA|NOPTR, $32

// plusMinus: eight float32 1s, then eight −1s.
DATA plusMinus<>+0(SB)/8, $0x3f8000003f800000
DATA plusMinus<>+8(SB)/8, $0x3f8000003f800000
DATA plusMinus<>+16(SB)/8, $0x3f8000003f800000
DATA plusMinus<>+24(SB)/8, $0x3f8000003f800000
DATA plusMinus<>+32(SB)/8, $0xbf800000bf800000
DATA plusMinus<>+40(SB)/8, $0xbf800000bf800000
DATA plusMinus<>+48(SB)/8, $0xbf800000bf800000
DATA plusMinus<>+56(SB)/8, $0xbf800000bf800000
GLOBL plusMinus<>(SB), RODATA|NOPTR, $64

#define Q4_KVNNI_SETUP \
	MOVL         $0x0F, AX ; \
	VPBROADCASTB AX, Z31 ; \
	VMOVDQU64    q4kSc01<>(SB), Z30 ; \
	VMOVDQU64    q4kSc45<>(SB), Z29 ; \
	VMOVDQU64    q4kMins<>(SB), Y28 ; \
	VMOVDQU64    q4kD<>(SB), Y27 ; \
	VMOVUPS      plusMinus<>(SB), Z24

// Q4_KVNNI_ACTS arranges the activation super-block at SI as the quants.
#define Q4_KVNNI_ACTS \
	VMOVDQU64    4(SI), Y20 ; \
	VINSERTI64X4 $1, 68(SI), Z20, Z20 /* a 0–31 | a 64–95: sub-blocks 0 | 2 */ ; \
	VMOVDQU64    36(SI), Y21 ; \
	VINSERTI64X4 $1, 100(SI), Z21, Z21 /* 1 | 3 */ ; \
	VMOVDQU64    132(SI), Y22 ; \
	VINSERTI64X4 $1, 196(SI), Z22, Z22 /* 4 | 6 */ ; \
	VMOVDQU64    164(SI), Y23 ; \
	VINSERTI64X4 $1, 228(SI), Z23, Z23 /* 5 | 7 */ ; \
	VMOVDQU64    260(SI), Y25 /* bsums */ ; \
	VBROADCASTSS (SI), Z26 ; \
	VMULPS       Z24, Z26, Z26 /* [d_a ×8 | −d_a ×8] */

// q4kScales leaves the bytes [sc0–7, m0–7] of the super-block
// at w in X8, from its scales[12] read as three little-endian words u0,
// u1, u2 (AX, R12, R13): sc0–3 = u0 & 63 and m0–3 = u1 & 63 per byte; the
// low nibbles of sc4–7 are u2 & 0x0F, of m4–7 u2 >> 4, and their top two
// bits the top two of u0 and u1, moved down to bits 4–5 by >> 2.
#define q4kScales(w) \
	MOVL    4(w)(BX*1), AX ; \
	MOVL    8(w)(BX*1), R12 ; \
	MOVL    12(w)(BX*1), R13 ; \
	MOVL    AX, DX ; \
	SHRL    $2, DX ; \
	ANDL    $0x30303030, DX /* top bits of sc4–7 */ ; \
	ANDL    $0x3f3f3f3f, AX /* sc0–3 */ ; \
	SHLQ    $32, DX ; \
	ORQ     DX, AX ; \
	MOVL    R13, DX ; \
	ANDL    $0x0f0f0f0f, DX ; \
	SHLQ    $32, DX ; \
	ORQ     DX, AX /* sc0–3, sc4–7 */ ; \
	MOVL    R12, DX ; \
	SHRL    $2, DX ; \
	ANDL    $0x30303030, DX /* top bits of m4–7 */ ; \
	SHRL    $4, R13 ; \
	ANDL    $0x0f0f0f0f, R13 ; \
	ORL     R13, DX /* m4–7 */ ; \
	ANDL    $0x3f3f3f3f, R12 /* m0–3 */ ; \
	SHLQ    $32, DX ; \
	ORQ     DX, R12 ; \
	VMOVQ   AX, X8 ; \
	VPINSRQ $1, R12, X8, X8 /* [sc0–7, m0–7] */

// Q4_KVNNI_ROW adds the super-block of the row at w to acc.
#define Q4_KVNNI_ROW(w, acc) \
	q4kScales(w) ; \
	VPMOVZXBW     X8, Y8 /* scales and mins as words */ ; \
	VPERMW        Z8, Z30, Z9 /* scales of sub-blocks 0–3, spread */ ; \
	VPERMW        Z8, Z29, Z10 /* 4–7 */ ; \
	VPERMW        Y8, Y28, Y11 /* the mins, each twice */ ; \
	VMOVDQU64     16(w)(BX*1), Z0 /* chunks 0, 1 */ ; \
	VMOVDQU64     80(w)(BX*1), Z2 /* chunks 2, 3 */ ; \
	VPSRLW        $4, Z0, Z1 ; \
	VPSRLW        $4, Z2, Z3 ; \
	VPANDD        Z31, Z0, Z0 /* sub-blocks 0 | 2 */ ; \
	VPANDD        Z31, Z1, Z1 /* 1 | 3 */ ; \
	VPANDD        Z31, Z2, Z2 /* 4 | 6 */ ; \
	VPANDD        Z31, Z3, Z3 /* 5 | 7 */ ; \
	VPXORD        Z4, Z4, Z4 ; \
	VPXORD        Z5, Z5, Z5 ; \
	VPXORD        Z6, Z6, Z6 ; \
	VPXORD        Z7, Z7, Z7 ; \
	VPDPBUSD      Z20, Z0, Z4 ; \
	VPDPBUSD      Z21, Z1, Z5 ; \
	VPDPBUSD      Z22, Z2, Z6 ; \
	VPDPBUSD      Z23, Z3, Z7 ; \
	VPACKSSDW     Z5, Z4, Z4 /* words: lanes 0–1 [s0 ×4, s1 ×4], 2–3 [s2, s3] */ ; \
	VPACKSSDW     Z7, Z6, Z6 /* the same for s4–s7 */ ; \
	VPMADDWD      Z9, Z4, Z4 /* × sc_s */ ; \
	VPDPWSSD      Z10, Z6, Z4 ; \
	VEXTRACTI64X4 $1, Z4, Y5 ; \
	VPADDD        Y5, Y4, Y4 /* Σ sc_s·Σ q·a, in eight parts */ ; \
	VPMADDWD      Y25, Y11, Y5 /* m_s·(bsums[2s] + bsums[2s+1]) */ ; \
	VINSERTI64X4  $1, Y5, Z4, Z4 ; \
	VCVTDQ2PS     Z4, Z4 ; \
	VPERMW        (w)(BX*1), Y27, Y6 /* f16 [d ×8, dmin ×8] */ ; \
	VCVTPH2PS     Y6, Z6 ; \
	VMULPS        Z26, Z6, Z6 /* [d·d_a ×8, −dmin·d_a ×8] */ ; \
	VFMADD231PS   Z6, Z4, acc

// func dot4Q4_KVNNI(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)
// supers ≥ 1 super-blocks of Q4_K from each row, times as many of Q8_K
// from a; out gets the four dot products.
TEXT ·dot4Q4_KVNNI(SB), NOSPLIT, $8-56
	MOVQ   w0+0(FP), R8
	MOVQ   w1+8(FP), R9
	MOVQ   w2+16(FP), R10
	MOVQ   w3+24(FP), R11
	MOVQ   a+32(FP), SI
	MOVQ   supers+40(FP), CX
	Q4_KVNNI_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ   BX, BX

q4_kv4_loop:
	Q4_KVNNI_ACTS
	Q4_KVNNI_ROW(R8, Z16)
	Q4_KVNNI_ROW(R9, Z17)
	Q4_KVNNI_ROW(R10, Z18)
	Q4_KVNNI_ROW(R11, Z19)
	PF_NEXT(PF9, q4_kv4_far, q4_kv4_pf) // the next group: 4 × 144 bytes, nine lines
	ADDQ       $576, DI
	ADDQ       $144, BX
	ADDQ       $292, SI
	DECQ       CX
	JNZ        q4_kv4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ4_KVNNI(w, a *byte, supers int) float32
// The same for one row.
TEXT ·dotQ4_KVNNI(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   supers+16(FP), CX
	Q4_KVNNI_SETUP
	VPXORD Z16, Z16, Z16
	XORQ   BX, BX

q4_kv1_loop:
	Q4_KVNNI_ACTS
	Q4_KVNNI_ROW(R8, Z16)
	ADDQ $144, BX
	ADDQ $292, SI
	DECQ CX
	JNZ  q4_kv1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q6_K × Q8_K: one super-block (256 elements, 210 bytes) per step.
//
// Each half n of the super-block (128 elements) keeps the low four bits
// of its quants in ql[64n:64n+64] and the top two in qh[32n:32n+32]. One
// 64-byte load of ql gives, in its low nibbles, elements 0–63 of the half
// in order (ql[l] holds element l, ql[l+32] element l+32) and in its high
// nibbles elements 64–127. The top bits come from
//
//	H = [qh | qh >> 2] & 0x33
//
// whose bits 0–1 are the top bits of elements 0–31 | 32–63 and bits 4–5
// those of 64–95 | 96–127. VPTERNLOGD $0xE4 (bitwise "mask ? x : y" with
// mask 0x0F) joins each nibble with its two bits in one instruction:
//
//	low  = 0x0F ? ql      : H << 4     elements 0–63
//	high = 0x0F ? ql >> 4 : H          elements 64–127
//
// (the word shifts spill bits between bytes, but only into the bits the
// other operand provides). The quants q are 0…63 and VPDPBUSD needs them
// unsigned, so the −32 is taken out of each lane's own sum:
// Σ(q−32)·a = Σq·a − Σ32·a over the lane's four elements, where Σ32·a,
// the same for every row, is one VPDPBUSD of the activations with 32s per
// super-block. (Taking it out through Q8_K's sums of 16 instead would leave
// each lane a large Σq·a and another a large −32·Σa, which cancel only
// after their conversion to float32: a rounding that scales with the
// unsigned quants, not with the terms.)
//
// VPDPBUSD of the k-th register of quants with its 64 activations leaves
// sub-block 4k+L in lane group L (sums 4L…4L+3). The sums are scaled as
// in Q4_K, packed to words (|4·32·128| < 2¹⁵) and multiplied by the int8
// scales, spread by q6kSc01 and q6kSc23 to match.
//
// Constants: Z31 = 0x0F bytes, Z30 = 0x33 bytes, Z29 = q6kSc01,
// Z28 = q6kSc23, Z27 = 32 bytes. Per step: Z20–Z23 activations 0–63,
// 64–127, 128–191, 192–255; Z11, Z14, Z15, Z24 their −Σ32·a per lane
// (each row's sums start there); Z26 d_a.

// q6kSc01: lane group L gets [sc_L ×4, sc_(4+L) ×4].
DATA q6kSc01<>+0(SB)/8, $0x0000000000000000
DATA q6kSc01<>+8(SB)/8, $0x0004000400040004
DATA q6kSc01<>+16(SB)/8, $0x0001000100010001
DATA q6kSc01<>+24(SB)/8, $0x0005000500050005
DATA q6kSc01<>+32(SB)/8, $0x0002000200020002
DATA q6kSc01<>+40(SB)/8, $0x0006000600060006
DATA q6kSc01<>+48(SB)/8, $0x0003000300030003
DATA q6kSc01<>+56(SB)/8, $0x0007000700070007
GLOBL q6kSc01<>(SB), RODATA|NOPTR, $64

// q6kSc23: lane group L gets [sc_(8+L) ×4, sc_(12+L) ×4].
DATA q6kSc23<>+0(SB)/8, $0x0008000800080008
DATA q6kSc23<>+8(SB)/8, $0x000c000c000c000c
DATA q6kSc23<>+16(SB)/8, $0x0009000900090009
DATA q6kSc23<>+24(SB)/8, $0x000d000d000d000d
DATA q6kSc23<>+32(SB)/8, $0x000a000a000a000a
DATA q6kSc23<>+40(SB)/8, $0x000e000e000e000e
DATA q6kSc23<>+48(SB)/8, $0x000b000b000b000b
DATA q6kSc23<>+56(SB)/8, $0x000f000f000f000f
GLOBL q6kSc23<>(SB), RODATA|NOPTR, $64

#define Q6_KVNNI_SETUP \
	MOVL         $0x0F, AX ; \
	VPBROADCASTB AX, Z31 ; \
	MOVL         $0x33, AX ; \
	VPBROADCASTB AX, Z30 ; \
	VMOVDQU64    q6kSc01<>(SB), Z29 ; \
	VMOVDQU64    q6kSc23<>(SB), Z28 ; \
	MOVL         $0x20, AX ; \
	VPBROADCASTB AX, Z27

// Q6_KVNNI_NEG sets neg to −Σ32·a per lane of the activations in acts.
#define Q6_KVNNI_NEG(acts, neg) \
	VPXORD       Z13, Z13, Z13 ; \
	VPDPBUSD     acts, Z27, Z13 ; \
	VPXORD       neg, neg, neg ; \
	VPSUBD       Z13, neg, neg

#define Q6_KVNNI_ACTS \
	VMOVDQU64    4(SI), Z20 ; \
	VMOVDQU64    68(SI), Z21 ; \
	VMOVDQU64    132(SI), Z22 ; \
	VMOVDQU64    196(SI), Z23 ; \
	VBROADCASTSS (SI), Z26 ; \
	Q6_KVNNI_NEG(Z20, Z11) ; \
	Q6_KVNNI_NEG(Z21, Z14) ; \
	Q6_KVNNI_NEG(Z22, Z15) ; \
	Q6_KVNNI_NEG(Z23, Z24)

// Q6_KVNNI_HALF unpacks the half whose ql and qh start at byte offsets
// qloff and qhoff of the super-block at w into lo (its elements 0–63)
// and hi (64–127).
#define Q6_KVNNI_HALF(w, qloff, qhoff, lo, hi) \
	VMOVDQU64    qloff(w)(BX*1), lo ; \
	VMOVDQU      qhoff(w)(BX*1), Y12 ; \
	VPSRLW       $2, Y12, Y13 ; \
	VINSERTI64X4 $1, Y13, Z12, Z12 ; \
	VPANDD       Z30, Z12, Z12 /* H */ ; \
	VPSRLW       $4, lo, hi ; \
	VPTERNLOGD   $0xE4, Z31, Z12, hi /* elements 64–127 */ ; \
	VPSLLW       $4, Z12, Z12 ; \
	VPTERNLOGD   $0xE4, Z31, Z12, lo /* elements 0–63 */

// Q6_KVNNI_ROW adds the super-block of the row at w to acc.
#define Q6_KVNNI_ROW(w, acc) \
	Q6_KVNNI_HALF(w, 0, 128, Z0, Z1) ; \
	Q6_KVNNI_HALF(w, 64, 160, Z2, Z3) ; \
	VMOVDQA64    Z11, Z4 ; \
	VMOVDQA64    Z14, Z5 ; \
	VMOVDQA64    Z15, Z6 ; \
	VMOVDQA64    Z24, Z7 ; \
	VPDPBUSD     Z20, Z0, Z4 /* sub-blocks 0–3, four sums of (q−32)·a each */ ; \
	VPDPBUSD     Z21, Z1, Z5 /* 4–7 */ ; \
	VPDPBUSD     Z22, Z2, Z6 /* 8–11 */ ; \
	VPDPBUSD     Z23, Z3, Z7 /* 12–15 */ ; \
	VPMOVSXBW    192(w)(BX*1), Y8 /* the sixteen scales as words */ ; \
	VPERMW       Z8, Z29, Z9 ; \
	VPERMW       Z8, Z28, Z10 ; \
	VPACKSSDW    Z5, Z4, Z4 /* lane group L: [s_L ×4, s_(4+L) ×4] */ ; \
	VPACKSSDW    Z7, Z6, Z6 /* [s_(8+L) ×4, s_(12+L) ×4] */ ; \
	VPMADDWD     Z9, Z4, Z4 ; \
	VPDPWSSD     Z10, Z6, Z4 /* Σ sc_s·Σ (q−32)·a */ ; \
	VCVTDQ2PS    Z4, Z4 ; \
	VPBROADCASTW 208(w)(BX*1), Y6 ; \
	VCVTPH2PS    Y6, Z6 ; \
	VMULPS       Z26, Z6, Z6 /* d·d_a */ ; \
	VFMADD231PS  Z6, Z4, acc

// func dot4Q6_KVNNI(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)
// supers ≥ 1 super-blocks of Q6_K from each row, times as many of Q8_K
// from a; out gets the four dot products.
TEXT ·dot4Q6_KVNNI(SB), NOSPLIT, $8-56
	MOVQ   w0+0(FP), R8
	MOVQ   w1+8(FP), R9
	MOVQ   w2+16(FP), R10
	MOVQ   w3+24(FP), R11
	MOVQ   a+32(FP), SI
	MOVQ   supers+40(FP), CX
	Q6_KVNNI_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ   BX, BX

q6_kv4_loop:
	Q6_KVNNI_ACTS
	Q6_KVNNI_ROW(R8, Z16)
	Q6_KVNNI_ROW(R9, Z17)
	Q6_KVNNI_ROW(R10, Z18)
	Q6_KVNNI_ROW(R11, Z19)
	PF_NEXT(PF14, q6_kv4_far, q6_kv4_pf) // the next group: 4 × 210 bytes, fourteen lines
	ADDQ       $840, DI
	ADDQ       $210, BX
	ADDQ       $292, SI
	DECQ       CX
	JNZ        q6_kv4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ6_KVNNI(w, a *byte, supers int) float32
// The same for one row.
TEXT ·dotQ6_KVNNI(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   supers+16(FP), CX
	Q6_KVNNI_SETUP
	VPXORD Z16, Z16, Z16
	XORQ   BX, BX

q6_kv1_loop:
	Q6_KVNNI_ACTS
	Q6_KVNNI_ROW(R8, Z16)
	ADDQ $210, BX
	ADDQ $292, SI
	DECQ CX
	JNZ  q6_kv1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET
