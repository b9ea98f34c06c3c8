//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 kernels, for processors without AVX-512 VNNI: the algorithms
// of dot_amd64.s on 256-bit registers, with the multiply-add done in two
// steps. VPMADDUBSW multiplies 32 unsigned bytes by 32 signed bytes and
// adds neighbouring products into sixteen 16-bit words; VPMADDWD then
// multiplies the words by a vector of words (ones, or a sub-block's scale)
// and adds neighbours into eight 32-bit sums. With unsigned quants of at
// most 63 and activations of at least −128 a word never overflows.
//
// Register conventions as in dot_amd64.s: R8–R11 the rows, SI the
// activations, BX the offset in each row, CX groups left, DI the
// prefetch pointer, DX out. AVX2 has sixteen vector registers: the four
// rows' float sums live in Y9–Y12, constants from Y13 up.

// PF_SETUP and PF_NEXT: as in dot_amd64.s, DI = w0 + 4·(w1 − w0), the
// next group, prefetched into L1 if it has at most PF_NEAR_MAX bytes and
// into L2 if more.
#define PF_SETUP \
	MOVQ R9, DI ; \
	SUBQ R8, DI ; \
	SHLQ $2, DI ; \
	MOVQ DI, group-8(SP) ; \
	ADDQ R8, DI

#define PF_NEAR_MAX 16384

#define PF3(op) \
	op (DI) ; \
	op 64(DI) ; \
	op 128(DI)

#define PF9(op) \
	PF3(op) ; \
	op 192(DI) ; \
	op 256(DI) ; \
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

#define PF_NEXT(lines, far, done) \
	CMPQ group-8(SP), $PF_NEAR_MAX ; \
	JA   far ; \
	lines(PREFETCHT0) ; \
	JMP  done ; \
far: \
	lines(PREFETCHT1) ; \
done:

// HSUM4 adds the eight lanes of each of Y9–Y12 and stores the four sums
// at (DX).
#define HSUM4 \
	VHADDPS      Y10, Y9, Y0 /* [s0 s0 s1 s1] in each 128-bit half */ ; \
	VHADDPS      Y12, Y11, Y1 /* [s2 s2 s3 s3] */ ; \
	VHADDPS      Y1, Y0, Y0 /* [s0 s1 s2 s3] */ ; \
	VEXTRACTF128 $1, Y0, X1 ; \
	VADDPS       X1, X0, X0 ; \
	VMOVUPS      X0, (DX)

// HSUM1 adds the eight lanes of Y9 into X0.
#define HSUM1 \
	VEXTRACTF128 $1, Y9, X0 ; \
	VADDPS       X0, X9, X0 ; \
	VHADDPS      X0, X0, X0 ; \
	VHADDPS      X0, X0, X0

#define ZERO_ACCS \
	VXORPS Y9, Y9, Y9 ; \
	VXORPS Y10, Y10, Y10 ; \
	VXORPS Y11, Y11, Y11 ; \
	VXORPS Y12, Y12, Y12

// ---------------------------------------------------------------------
// Q4_0 × Q8_0: two blocks (64 elements, 36 bytes of each row) per step.
//
// The nibbles of a pair of blocks A, B unpack as
//
//	Y4 = [qs_A | qs_B] & 0x0F        = [A 0–15 | B 0–15]
//	Y5 = ([qs_A | qs_B] >> 4) & 0x0F = [A 16–31 | B 16–31]
//
// and the activations are arranged to match (Y0, Y1). The two VPMADDUBSW
// results add in words (|2·15·128·2| < 2¹⁵), so one VPMADDWD, one
// conversion and one FMA serve 64 products: sums 0–3 belong to block A,
// 4–7 to B. The −8 is taken out in words too: VPMADDUBSW of the
// activations with 8s gives 8·(a_i + a_i+1), subtracted once per row.
//
// Constants: Y15 = 0x0F bytes, Y14 = 1 words, Y13 = 8 bytes. Per step:
// Y0, Y1 the activations, Y2 the words 8·Σa, Y3 [d_a of A ×4 | of B ×4].

#define Q4_0AVX2_SETUP \
	MOVL         $0x0F, AX ; \
	VMOVD        AX, X15 ; \
	VPBROADCASTB X15, Y15 ; \
	MOVL         $1, AX ; \
	VMOVD        AX, X14 ; \
	VPBROADCASTW X14, Y14 ; \
	MOVL         $8, AX ; \
	VMOVD        AX, X13 ; \
	VPBROADCASTB X13, Y13

// Q4_0AVX2_ACTS prepares the activation pair at SI: Y0–Y3.
#define Q4_0AVX2_ACTS \
	VMOVDQU      2(SI), X0 ; \
	VINSERTI128  $1, 36(SI), Y0, Y0 /* [A 0–15 | B 0–15] */ ; \
	VMOVDQU      18(SI), X1 ; \
	VINSERTI128  $1, 52(SI), Y1, Y1 /* [A 16–31 | B 16–31] */ ; \
	VPMADDUBSW   Y0, Y13, Y2 ; \
	VPMADDUBSW   Y1, Y13, Y4 ; \
	VPADDW       Y4, Y2, Y2 /* 8·Σa, four a per word */ ; \
	VPBROADCASTW (SI), X3 ; \
	VPBROADCASTW 34(SI), X4 ; \
	VPUNPCKLQDQ  X4, X3, X3 ; \
	VCVTPH2PS    X3, Y3 /* [d_a of A ×4 | of B ×4] */

#define Q4_0AVX2_ROW(w, acc) \
	VMOVDQU      2(w)(BX*1), X4 ; \
	VINSERTI128  $1, 20(w)(BX*1), Y4, Y4 /* [qs_A | qs_B] */ ; \
	VPSRLW       $4, Y4, Y5 ; \
	VPAND        Y15, Y4, Y4 /* [A 0–15 | B 0–15] */ ; \
	VPAND        Y15, Y5, Y5 /* [A 16–31 | B 16–31] */ ; \
	VPMADDUBSW   Y0, Y4, Y4 /* q·a, in pairs */ ; \
	VPMADDUBSW   Y1, Y5, Y5 ; \
	VPADDW       Y5, Y4, Y4 /* in fours */ ; \
	VPSUBW       Y2, Y4, Y4 /* (q−8)·a */ ; \
	VPMADDWD     Y14, Y4, Y4 /* eight sums */ ; \
	VCVTDQ2PS    Y4, Y4 ; \
	VPBROADCASTW (w)(BX*1), X5 ; \
	VPBROADCASTW 18(w)(BX*1), X6 ; \
	VPUNPCKLQDQ  X6, X5, X5 ; \
	VCVTPH2PS    X5, Y5 /* [d_w of A ×4 | of B ×4] */ ; \
	VMULPS       Y3, Y5, Y5 /* d_w·d_a */ ; \
	VFMADD231PS  Y5, Y4, acc

// func dot4Q4_0AVX2(w0, w1, w2, w3, a *byte, pairs int, out *[4]float32)
// pairs ≥ 1 pairs of Q4_0 blocks from each row, times as many pairs of
// Q8_0 blocks from a; out gets the four dot products.
TEXT ·dot4Q4_0AVX2(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ pairs+40(FP), CX
	Q4_0AVX2_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q4_0a4_loop:
	Q4_0AVX2_ACTS
	Q4_0AVX2_ROW(R8, Y9)
	Q4_0AVX2_ROW(R9, Y10)
	Q4_0AVX2_ROW(R10, Y11)
	Q4_0AVX2_ROW(R11, Y12)
	PF_NEXT(PF3, q4_0a4_far, q4_0a4_pf) // the next group: 4 × 36 bytes
	ADDQ       $144, DI
	ADDQ       $36, BX
	ADDQ       $68, SI
	DECQ       CX
	JNZ        q4_0a4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ4_0AVX2(w, a *byte, pairs int) float32
// The same for one row.
TEXT ·dotQ4_0AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   pairs+16(FP), CX
	Q4_0AVX2_SETUP
	VXORPS Y9, Y9, Y9
	XORQ   BX, BX

q4_0a1_loop:
	Q4_0AVX2_ACTS
	Q4_0AVX2_ROW(R8, Y9)
	ADDQ $36, BX
	ADDQ $68, SI
	DECQ CX
	JNZ  q4_0a1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q8_0 × Q8_0: one block per step.
//
// VPMADDUBSW wants its first operand unsigned: it gets |q|, and the
// activations take q's sign (VPSIGNB), so each product is |q|·sign(q)·a.
// |q| = 128 reads correctly as an unsigned byte; the activations are
// never −128 (QuantizeRow's Q8_0 stays within ±127), so the flipped sign
// never overflows.
//
// Constants: Y14 = 1 words. Per step: Y0 activations, Y2 d_a ×8.

#define Q8_0AVX2_SETUP \
	MOVL         $1, AX ; \
	VMOVD        AX, X14 ; \
	VPBROADCASTW X14, Y14

#define Q8_0AVX2_ACTS \
	VMOVDQU      2(SI), Y0 ; \
	VPBROADCASTW (SI), X2 ; \
	VCVTPH2PS    X2, Y2

#define Q8_0AVX2_ROW(w, acc) \
	VMOVDQU      2(w)(BX*1), Y3 ; \
	VPSIGNB      Y3, Y3, Y4 /* |q| */ ; \
	VPSIGNB      Y3, Y0, Y5 /* a·sign(q) */ ; \
	VPMADDUBSW   Y5, Y4, Y4 /* q·a, in pairs */ ; \
	VPMADDWD     Y14, Y4, Y4 ; \
	VCVTDQ2PS    Y4, Y4 ; \
	VPBROADCASTW (w)(BX*1), X5 ; \
	VCVTPH2PS    X5, Y5 ; \
	VMULPS       Y2, Y5, Y5 ; \
	VFMADD231PS  Y5, Y4, acc

// func dot4Q8_0AVX2(w0, w1, w2, w3, a *byte, blocks int, out *[4]float32)
TEXT ·dot4Q8_0AVX2(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ blocks+40(FP), CX
	Q8_0AVX2_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q8_0a4_loop:
	Q8_0AVX2_ACTS
	Q8_0AVX2_ROW(R8, Y9)
	Q8_0AVX2_ROW(R9, Y10)
	Q8_0AVX2_ROW(R10, Y11)
	Q8_0AVX2_ROW(R11, Y12)
	PF_NEXT(PF3, q8_0a4_far, q8_0a4_pf) // the next group: 4 × 34 bytes
	ADDQ       $136, DI
	ADDQ       $34, BX
	ADDQ       $34, SI
	DECQ       CX
	JNZ        q8_0a4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ8_0AVX2(w, a *byte, blocks int) float32
TEXT ·dotQ8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   blocks+16(FP), CX
	Q8_0AVX2_SETUP
	VXORPS Y9, Y9, Y9
	XORQ   BX, BX

q8_0a1_loop:
	Q8_0AVX2_ACTS
	Q8_0AVX2_ROW(R8, Y9)
	ADDQ $34, BX
	ADDQ $34, SI
	DECQ CX
	JNZ  q8_0a1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q4_K × Q8_K: one super-block per step.
//
// Chunk c of the quants gives sub-block 2c (low nibbles) and 2c+1 (high
// nibbles), 32 quants each, in the activations' order. VPMADDUBSW with
// the activations (read from memory: there are not registers enough to
// keep them) leaves sixteen words of one sub-block, and VPMADDWD with
// that sub-block's scale in every word multiplies and adds in one step.
// The scales and mins are unpacked as in dot_amd64.s (q4kScales) and
// spread with VPSHUFB, which shuffles bytes within each 128-bit half.
//
// Constants: Y15 = 0x0F bytes. Per step: Y14 d_a ×8. Per row: Y7 the
// scales as words [sc0–7 | sc0–7], Y6 the mins [m0, m0, …, m7, m7], Y0
// the integer sums.

// q4kSub: VPSHUFB indices that repeat word s of a half, s = 0…7 (32 bytes
// each).
DATA q4kSub<>+0(SB)/8, $0x0100010001000100
DATA q4kSub<>+8(SB)/8, $0x0100010001000100
DATA q4kSub<>+16(SB)/8, $0x0100010001000100
DATA q4kSub<>+24(SB)/8, $0x0100010001000100
DATA q4kSub<>+32(SB)/8, $0x0302030203020302
DATA q4kSub<>+40(SB)/8, $0x0302030203020302
DATA q4kSub<>+48(SB)/8, $0x0302030203020302
DATA q4kSub<>+56(SB)/8, $0x0302030203020302
DATA q4kSub<>+64(SB)/8, $0x0504050405040504
DATA q4kSub<>+72(SB)/8, $0x0504050405040504
DATA q4kSub<>+80(SB)/8, $0x0504050405040504
DATA q4kSub<>+88(SB)/8, $0x0504050405040504
DATA q4kSub<>+96(SB)/8, $0x0706070607060706
DATA q4kSub<>+104(SB)/8, $0x0706070607060706
DATA q4kSub<>+112(SB)/8, $0x0706070607060706
DATA q4kSub<>+120(SB)/8, $0x0706070607060706
DATA q4kSub<>+128(SB)/8, $0x0908090809080908
DATA q4kSub<>+136(SB)/8, $0x0908090809080908
DATA q4kSub<>+144(SB)/8, $0x0908090809080908
DATA q4kSub<>+152(SB)/8, $0x0908090809080908
DATA q4kSub<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA q4kSub<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA q4kSub<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA q4kSub<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA q4kSub<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA q4kSub<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA q4kSub<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA q4kSub<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA q4kSub<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA q4kSub<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA q4kSub<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA q4kSub<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL q4kSub<>(SB), RODATA|NOPTR, $256

// q4kMinsY: from [m0–7 | m0–7] as words, [m0, m0, …, m3, m3 | m4, m4, …,
// m7, m7].
DATA q4kMinsY<>+0(SB)/8, $0x0302030201000100
DATA q4kMinsY<>+8(SB)/8, $0x0706070605040504
DATA q4kMinsY<>+16(SB)/8, $0x0b0a0b0a09080908
DATA q4kMinsY<>+24(SB)/8, $0x0f0e0f0e0d0c0d0c
GLOBL q4kMinsY<>(SB), RODATA|NOPTR, $32

// q4kScales: as in dot_amd64.s, X8 = [sc0–7, m0–7] from the scales of
// the super-block at w (AX, DX, R12, R13 scratch).
#define q4kScales(w) \
	MOVL    4(w)(BX*1), AX ; \
	MOVL    8(w)(BX*1), R12 ; \
	MOVL    12(w)(BX*1), R13 ; \
	MOVL    AX, DX ; \
	SHRL    $2, DX ; \
	ANDL    $0x30303030, DX ; \
	ANDL    $0x3f3f3f3f, AX ; \
	SHLQ    $32, DX ; \
	ORQ     DX, AX ; \
	MOVL    R13, DX ; \
	ANDL    $0x0f0f0f0f, DX ; \
	SHLQ    $32, DX ; \
	ORQ     DX, AX ; \
	MOVL    R12, DX ; \
	SHRL    $2, DX ; \
	ANDL    $0x30303030, DX ; \
	SHRL    $4, R13 ; \
	ANDL    $0x0f0f0f0f, R13 ; \
	ORL     R13, DX ; \
	ANDL    $0x3f3f3f3f, R12 ; \
	SHLQ    $32, DX ; \
	ORQ     DX, R12 ; \
	VMOVQ   AX, X8 ; \
	VPINSRQ $1, R12, X8, X8

// Q4_KAVX2_CHUNK adds chunk c of the row at w: quants at qoff, the
// activations of its two sub-blocks at aoff and aoff+32, their scales
// spread by the q4kSub tables at soff and soff+32.
#define Q4_KAVX2_CHUNK(w, qoff, aoff, soff) \
	VMOVDQU    qoff(w)(BX*1), Y1 ; \
	VPSRLW     $4, Y1, Y2 ; \
	VPAND      Y15, Y1, Y1 /* sub-block 2c */ ; \
	VPAND      Y15, Y2, Y2 /* 2c+1 */ ; \
	VPMADDUBSW aoff(SI), Y1, Y1 ; \
	VPMADDUBSW (aoff+32)(SI), Y2, Y2 ; \
	VPSHUFB    q4kSub<>+soff(SB), Y7, Y3 ; \
	VPMADDWD   Y3, Y1, Y1 /* × sc_2c */ ; \
	VPSHUFB    q4kSub<>+(soff+32)(SB), Y7, Y4 ; \
	VPMADDWD   Y4, Y2, Y2 /* × sc_2c+1 */ ; \
	VPADDD     Y1, Y0, Y0 ; \
	VPADDD     Y2, Y0, Y0

#define Q4_KAVX2_ROW(w, acc) \
	q4kScales(w) ; \
	VPMOVZXBW    X8, Y8 /* [sc0–7 | m0–7] as words */ ; \
	VPERMQ       $0x44, Y8, Y7 /* [sc0–7 | sc0–7] */ ; \
	VPERMQ       $0xEE, Y8, Y6 /* [m0–7 | m0–7] */ ; \
	VPSHUFB      q4kMinsY<>(SB), Y6, Y6 ; \
	VPXOR        Y0, Y0, Y0 ; \
	Q4_KAVX2_CHUNK(w, 16, 4, 0) ; \
	Q4_KAVX2_CHUNK(w, 48, 68, 64) ; \
	Q4_KAVX2_CHUNK(w, 80, 132, 128) ; \
	Q4_KAVX2_CHUNK(w, 112, 196, 192) ; \
	VPMADDWD     260(SI), Y6, Y6 /* m_s·(bsums[2s] + bsums[2s+1]) */ ; \
	VCVTDQ2PS    Y0, Y0 ; \
	VCVTDQ2PS    Y6, Y6 ; \
	VPBROADCASTW (w)(BX*1), X1 ; \
	VCVTPH2PS    X1, Y1 ; \
	VMULPS       Y14, Y1, Y1 /* d·d_a */ ; \
	VFMADD231PS  Y1, Y0, acc ; \
	VPBROADCASTW 2(w)(BX*1), X2 ; \
	VCVTPH2PS    X2, Y2 ; \
	VMULPS       Y14, Y2, Y2 /* dmin·d_a */ ; \
	VFNMADD231PS Y2, Y6, acc

// func dot4Q4_KAVX2(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)
TEXT ·dot4Q4_KAVX2(SB), NOSPLIT, $8-56
	MOVQ         w0+0(FP), R8
	MOVQ         w1+8(FP), R9
	MOVQ         w2+16(FP), R10
	MOVQ         w3+24(FP), R11
	MOVQ         a+32(FP), SI
	MOVQ         supers+40(FP), CX
	MOVL         $0x0F, AX
	VMOVD        AX, X15
	VPBROADCASTB X15, Y15
	PF_SETUP
	ZERO_ACCS
	XORQ         BX, BX

q4_ka4_loop:
	VBROADCASTSS (SI), Y14
	Q4_KAVX2_ROW(R8, Y9)
	Q4_KAVX2_ROW(R9, Y10)
	Q4_KAVX2_ROW(R10, Y11)
	Q4_KAVX2_ROW(R11, Y12)
	PF_NEXT(PF9, q4_ka4_far, q4_ka4_pf) // the next group: 4 × 144 bytes, nine lines
	ADDQ         $576, DI
	ADDQ         $144, BX
	ADDQ         $292, SI
	DECQ         CX
	JNZ          q4_ka4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ4_KAVX2(w, a *byte, supers int) float32
TEXT ·dotQ4_KAVX2(SB), NOSPLIT, $0-28
	MOVQ         w+0(FP), R8
	MOVQ         a+8(FP), SI
	MOVQ         supers+16(FP), CX
	MOVL         $0x0F, AX
	VMOVD        AX, X15
	VPBROADCASTB X15, Y15
	VXORPS       Y9, Y9, Y9
	XORQ         BX, BX

q4_ka1_loop:
	VBROADCASTSS (SI), Y14
	Q4_KAVX2_ROW(R8, Y9)
	ADDQ         $144, BX
	ADDQ         $292, SI
	DECQ         CX
	JNZ          q4_ka1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q6_K × Q8_K: one super-block per step.
//
// For each half of 128 elements, two 32-byte loads of ql and one of qh
// give, for l = 0…31 (see dequantQ6_K):
//
//	element l     ql[l] & 0x0F         | (qh[l] << 4) & 0x30
//	element l+32  ql[l+32] & 0x0F      | (qh[l] << 2) & 0x30
//	element l+64  (ql[l] >> 4) & 0x0F  | qh[l] & 0x30
//	element l+96  (ql[l+32] >> 4) & 0x0F | (qh[l] >> 2) & 0x30
//
// (the word shifts spill bits between bytes only where the masks clear
// them). Each register of 32 quants covers two sub-blocks of 16: VPMADDWD
// takes the words [sc_2g ×8 | sc_2g+1 ×8], spread from the sixteen int8
// scales by VPERMQ and VPSHUFB (q6kPair). The −32 is taken out with the
// bsums: Σ_s sc_s·32·bsum_s. The eight lanes then hold sums that cancel
// only together (a large Σq·a here, a large −32·bsum there), so they are
// added as integers, exactly, before the one conversion to float32: the
// rounding is then that of the super-block's term, as in the Go road.
//
// Constants: Y15 = 0x0F bytes, Y14 = 0x30 bytes. Per step: Y13 d_a ×8.
// Per row: Y1 the scales as words [sc0–7 | sc0–7], Y2 [sc8–15 | sc8–15],
// Y0 the integer sums; Y3, Y4 ql, Y5 qh.

// q6kPair: VPSHUFB indices giving [word 2k ×8 | word 2k+1 ×8], k = 0…3.
DATA q6kPair<>+0(SB)/8, $0x0100010001000100
DATA q6kPair<>+8(SB)/8, $0x0100010001000100
DATA q6kPair<>+16(SB)/8, $0x0302030203020302
DATA q6kPair<>+24(SB)/8, $0x0302030203020302
DATA q6kPair<>+32(SB)/8, $0x0504050405040504
DATA q6kPair<>+40(SB)/8, $0x0504050405040504
DATA q6kPair<>+48(SB)/8, $0x0706070607060706
DATA q6kPair<>+56(SB)/8, $0x0706070607060706
DATA q6kPair<>+64(SB)/8, $0x0908090809080908
DATA q6kPair<>+72(SB)/8, $0x0908090809080908
DATA q6kPair<>+80(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA q6kPair<>+88(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA q6kPair<>+96(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA q6kPair<>+104(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA q6kPair<>+112(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA q6kPair<>+120(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL q6kPair<>(SB), RODATA|NOPTR, $128

// Q6_KAVX2_GROUP adds the 32 quants in Y6 (sub-blocks 2g, 2g+1, their
// activations at aoff) times their scales, spread from sc by the q6kPair
// table at poff.
#define Q6_KAVX2_GROUP(aoff, sc, poff) \
	VPMADDUBSW aoff(SI), Y6, Y6 ; \
	VPSHUFB    q6kPair<>+poff(SB), sc, Y7 ; \
	VPMADDWD   Y7, Y6, Y6 ; \
	VPADDD     Y6, Y0, Y0

// Q6_KAVX2_HALF adds half n of the super-block at w: ql at qloff, qh at
// qhoff, activations from aoff, scales in sc.
#define Q6_KAVX2_HALF(w, qloff, qhoff, aoff, sc) \
	VMOVDQU    qloff(w)(BX*1), Y3 ; \
	VMOVDQU    (qloff+32)(w)(BX*1), Y4 ; \
	VMOVDQU    qhoff(w)(BX*1), Y5 ; \
	VPAND      Y15, Y3, Y6 ; \
	VPSLLW     $4, Y5, Y7 ; \
	VPAND      Y14, Y7, Y7 ; \
	VPOR       Y7, Y6, Y6 /* elements l */ ; \
	Q6_KAVX2_GROUP(aoff, sc, 0) ; \
	VPAND      Y15, Y4, Y6 ; \
	VPSLLW     $2, Y5, Y7 ; \
	VPAND      Y14, Y7, Y7 ; \
	VPOR       Y7, Y6, Y6 /* elements l+32 */ ; \
	Q6_KAVX2_GROUP((aoff+32), sc, 32) ; \
	VPSRLW     $4, Y3, Y6 ; \
	VPAND      Y15, Y6, Y6 ; \
	VPAND      Y14, Y5, Y7 ; \
	VPOR       Y7, Y6, Y6 /* elements l+64 */ ; \
	Q6_KAVX2_GROUP((aoff+64), sc, 64) ; \
	VPSRLW     $4, Y4, Y6 ; \
	VPAND      Y15, Y6, Y6 ; \
	VPSRLW     $2, Y5, Y7 ; \
	VPAND      Y14, Y7, Y7 ; \
	VPOR       Y7, Y6, Y6 /* elements l+96 */ ; \
	Q6_KAVX2_GROUP((aoff+96), sc, 96)

#define Q6_KAVX2_ROW(w, acc) \
	VPMOVSXBW    192(w)(BX*1), Y8 /* the sixteen scales as words */ ; \
	VPERMQ       $0x44, Y8, Y1 ; \
	VPERMQ       $0xEE, Y8, Y2 ; \
	VPMADDWD     260(SI), Y8, Y8 /* sc_s·bsum_s, in pairs */ ; \
	VPSLLD       $5, Y8, Y8 ; \
	VPXOR        Y0, Y0, Y0 ; \
	VPSUBD       Y8, Y0, Y0 /* −32·Σ sc_s·bsum_s */ ; \
	Q6_KAVX2_HALF(w, 0, 128, 4, Y1) ; \
	Q6_KAVX2_HALF(w, 64, 160, 132, Y2) ; \
	VEXTRACTI128 $1, Y0, X6 ; \
	VPADDD       X6, X0, X0 ; \
	VPSHUFD      $0x4E, X0, X6 ; \
	VPADDD       X6, X0, X0 ; \
	VPSHUFD      $0xB1, X0, X6 ; \
	VPADDD       X6, X0, X0 /* the super-block's integer sum */ ; \
	VCVTDQ2PS    X0, X0 ; \
	VPBROADCASTW 208(w)(BX*1), X7 ; \
	VCVTPH2PS    X7, X7 ; \
	VMULSS       X13, X7, X7 /* d·d_a */ ; \
	VMULSS       X7, X0, X0 ; \
	VXORPS       X6, X6, X6 ; \
	VBLENDPS     $1, X0, X6, X0 /* lane 0 only: every lane holds the sum */ ; \
	VADDPS       Y0, acc, acc

#define Q6_KAVX2_SETUP \
	MOVL         $0x0F, AX ; \
	VMOVD        AX, X15 ; \
	VPBROADCASTB X15, Y15 ; \
	MOVL         $0x30, AX ; \
	VMOVD        AX, X14 ; \
	VPBROADCASTB X14, Y14

// func dot4Q6_KAVX2(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)
TEXT ·dot4Q6_KAVX2(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ supers+40(FP), CX
	Q6_KAVX2_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q6_ka4_loop:
	VBROADCASTSS (SI), Y13
	Q6_KAVX2_ROW(R8, Y9)
	Q6_KAVX2_ROW(R9, Y10)
	Q6_KAVX2_ROW(R10, Y11)
	Q6_KAVX2_ROW(R11, Y12)
	PF_NEXT(PF14, q6_ka4_far, q6_ka4_pf) // the next group: 4 × 210 bytes, fourteen lines
	ADDQ         $840, DI
	ADDQ         $210, BX
	ADDQ         $292, SI
	DECQ         CX
	JNZ          q6_ka4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ6_KAVX2(w, a *byte, supers int) float32
TEXT ·dotQ6_KAVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   supers+16(FP), CX
	Q6_KAVX2_SETUP
	VXORPS Y9, Y9, Y9
	XORQ   BX, BX

q6_ka1_loop:
	VBROADCASTSS (SI), Y13
	Q6_KAVX2_ROW(R8, Y9)
	ADDQ         $210, BX
	ADDQ         $292, SI
	DECQ         CX
	JNZ          q6_ka1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET
