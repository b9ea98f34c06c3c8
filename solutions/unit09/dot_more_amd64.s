//go:build amd64 && !purego

#include "textflag.h"

// The AVX-512 VNNI kernels of the types dot_amd64.s leaves over: Q5_0 and
// Q4_1 (against Q8_0 activations) and Q5_K (against Q8_K). They follow
// dot_amd64.s's kernels of the nearest type, and its conventions:
// registers, the integer work in VPDPBUSD, one conversion to float32 per
// block or super-block, sixteen float sums per row added at the end.
// dot_more_avx2_amd64.s holds the same on AVX2.
//
// Registers, all kernels:
//	R8–R11  the rows w0…w3 (R8 alone in the 1-row kernels)
//	SI      the activations, advanced one group per step
//	BX      the offset of the current group in each weight row
//	CX      groups left
//	DI      the prefetch pointer (4-row kernels)
//	Z16–Z19 the float sums of rows 0–3
//	Z20–Z31 constants (and Q5_K's prepared activations)
//	Z0–Z15  scratch (and the prepared activations of Q5_0 and Q4_1)

// PF_SETUP, PF_NEXT: as in dot_amd64.s. DI = w0 + 4·(w1 − w0), the next
// group of four rows, prefetched one line per 64 bytes of this group's,
// into L1 if the group has at most PF_NEAR_MAX bytes and into L2 if more.
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

#define PF6(op) \
	PF5(op) ; \
	op 320(DI)

#define PF11(op) \
	PF6(op) ; \
	op 384(DI) ; \
	op 448(DI) ; \
	op 512(DI) ; \
	op 576(DI) ; \
	op 640(DI)

#define PF_NEXT(lines, far, done) \
	CMPQ group-8(SP), $PF_NEAR_MAX ; \
	JA   far ; \
	lines(PREFETCHT0) ; \
	JMP  done ; \
far: \
	lines(PREFETCHT1) ; \
done:

// HSUM4, HSUM1, ZERO_ACCS: as in dot_amd64.s.
#define HSUM4 \
	VEXTRACTF64X4 $1, Z16, Y0 ; \
	VADDPS        Y0, Y16, Y0 ; \
	VEXTRACTF64X4 $1, Z17, Y1 ; \
	VADDPS        Y1, Y17, Y1 ; \
	VEXTRACTF64X4 $1, Z18, Y2 ; \
	VADDPS        Y2, Y18, Y2 ; \
	VEXTRACTF64X4 $1, Z19, Y3 ; \
	VADDPS        Y3, Y19, Y3 ; \
	VHADDPS       Y1, Y0, Y0 ; \
	VHADDPS       Y3, Y2, Y2 ; \
	VHADDPS       Y2, Y0, Y0 ; \
	VEXTRACTF128  $1, Y0, X1 ; \
	VADDPS        X1, X0, X0 ; \
	VMOVUPS       X0, (DX)

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

// q8scale4A: the f16 d of four Q8_0 activation blocks, bytes 0, 34, 68
// and 102, from the tables bytes 0–63 and 64–127 (words 0, 17, 34 and 51),
// each spread over its block's four sums (dot_amd64.s's q4scale4A).
DATA q8scale4A<>+0(SB)/8, $0x0000000000000000
DATA q8scale4A<>+8(SB)/8, $0x0011001100110011
DATA q8scale4A<>+16(SB)/8, $0x0022002200220022
DATA q8scale4A<>+24(SB)/8, $0x0033003300330033
DATA q8scale4A<>+32(SB)/8, $0
DATA q8scale4A<>+40(SB)/8, $0
DATA q8scale4A<>+48(SB)/8, $0
DATA q8scale4A<>+56(SB)/8, $0
GLOBL q8scale4A<>(SB), RODATA|NOPTR, $64

// Q8_0VNNI4_ACTS loads four Q8_0 activation blocks at SI as the quants of
// four weight blocks will lie (see Q5_0 below): Z0 their elements 0–15,
// Z1 16–31, Z3 d_a, four lanes per block.
#define Q8_0VNNI4_ACTS \
	VMOVDQU64    (SI), Z3 ; \
	VPERMT2W     64(SI), Z26, Z3 ; \
	VCVTPH2PS    Y3, Z3 ; \
	VMOVDQU      2(SI), X0 ; \
	VINSERTI32X4 $1, 36(SI), Z0, Z0 ; \
	VINSERTI32X4 $2, 70(SI), Z0, Z0 ; \
	VINSERTI32X4 $3, 104(SI), Z0, Z0 ; \
	VMOVDQU      18(SI), X1 ; \
	VINSERTI32X4 $1, 52(SI), Z1, Z1 ; \
	VINSERTI32X4 $2, 86(SI), Z1, Z1 ; \
	VINSERTI32X4 $3, 120(SI), Z1, Z1

// ---------------------------------------------------------------------
// Q5_0 × Q8_0: four blocks (128 elements, 88 bytes of each row) per step,
// for one row and for four.
//
// The Q4_0 4-row kernel's plan with a fifth bit. The blocks are 22 bytes,
// every field on an even byte, so word shuffles of two tables, bytes 0–63
// and 24–87 of the four blocks (VPERMT2W), collect their qs arrays into
// one register, [qs_A | qs_B | qs_C | qs_D] (q5gather), and the scales and
// qh words into another (q5dqh):
//
//	words 0–15   d_A ×4, d_B ×4, d_C ×4, d_D ×4
//	words 16–19  qh_A, qh_B, qh_C, qh_D, low halves
//	words 20–23  the same, high halves
//
// The low nibbles are elements 0–15 of each block, the high nibbles
// 16–31:
//
//	Z4 = [A 0–15 | B 0–15 | C 0–15 | D 0–15]
//	Z5 = [A 16–31 | B 16–31 | C 16–31 | D 16–31]
//
// and words 16–19, read as one 64-bit number, hold the fifth bits of Z4
// in its byte order (bit i for byte i), words 20–23 those of Z5. Moved
// into mask registers (K1, K2) they select the bytes a masked VPADDB adds
// 16 to, which gives the quants q = 0…31. VPDPBUSD takes them unsigned,
// and the −16 is taken out with the activations, Σ(q−16)·a = Σq·a −
// 16·Σa, as Q4_0's −8.
//
// Constants: Z31 = 0x0F bytes, Z30 = 0x10 bytes, Z29 = q5gather,
// Z28 = q5dqh, Z26 = q8scale4A, Z27 = 0. Per step: Z0, Z1 the
// activations, Z2 −16·Σa, Z3 d_a.

// q5gather: word w of the four blocks is word w of the first table for
// w < 32, else word w − 12 of the second, index w + 20. qs_A is words
// 3–10, qs_B 14–21, qs_C 25–32, qs_D 36–43.
DATA q5gather<>+0(SB)/8, $0x0006000500040003
DATA q5gather<>+8(SB)/8, $0x000a000900080007
DATA q5gather<>+16(SB)/8, $0x00110010000f000e
DATA q5gather<>+24(SB)/8, $0x0015001400130012
DATA q5gather<>+32(SB)/8, $0x001c001b001a0019
DATA q5gather<>+40(SB)/8, $0x0034001f001e001d
DATA q5gather<>+48(SB)/8, $0x003b003a00390038
DATA q5gather<>+56(SB)/8, $0x003f003e003d003c
GLOBL q5gather<>(SB), RODATA|NOPTR, $64

// q5dqh: the d of blocks A–D are words 0, 11, 22 and 33 (index 53), the
// low halves of their qh words 1, 12, 23, 34 (index 54), the high halves
// words 2, 13, 24, 35 (index 55).
DATA q5dqh<>+0(SB)/8, $0x0000000000000000
DATA q5dqh<>+8(SB)/8, $0x000b000b000b000b
DATA q5dqh<>+16(SB)/8, $0x0016001600160016
DATA q5dqh<>+24(SB)/8, $0x0035003500350035
DATA q5dqh<>+32(SB)/8, $0x00360017000c0001
DATA q5dqh<>+40(SB)/8, $0x00370018000d0002
DATA q5dqh<>+48(SB)/8, $0
DATA q5dqh<>+56(SB)/8, $0
GLOBL q5dqh<>(SB), RODATA|NOPTR, $64

#define Q5_0VNNI_SETUP \
	MOVL         $0x0F, AX ; \
	VPBROADCASTB AX, Z31 ; \
	MOVL         $0x10, AX ; \
	VPBROADCASTB AX, Z30 ; \
	VMOVDQU64    q5gather<>(SB), Z29 ; \
	VMOVDQU64    q5dqh<>(SB), Z28 ; \
	VMOVDQU64    q8scale4A<>(SB), Z26 ; \
	VPXORD       Z27, Z27, Z27

// Q5_0VNNI_ACTS prepares the four activation blocks at SI: Z0–Z3.
#define Q5_0VNNI_ACTS \
	Q8_0VNNI4_ACTS ; \
	VPXORD       Z2, Z2, Z2 ; \
	VPDPBUSD     Z0, Z30, Z2 ; \
	VPDPBUSD     Z1, Z30, Z2 /* 16·Σa, eight a per lane */ ; \
	VPSUBD       Z2, Z27, Z2 /* −16·Σa */

// Q5_0VNNI_ROW adds the step's products of the row at w to acc.
#define Q5_0VNNI_ROW(w, acc) \
	VMOVDQU64     (w)(BX*1), Z4 /* bytes 0–63 of the four blocks */ ; \
	VMOVDQA64     Z4, Z6 ; \
	VPERMT2W      24(w)(BX*1), Z28, Z6 /* f16 d_w spread, then the qh words */ ; \
	VPERMT2W      24(w)(BX*1), Z29, Z4 /* [qs_A | qs_B | qs_C | qs_D] */ ; \
	VEXTRACTI32X4 $2, Z6, X8 /* words 16–23: the fifth bits */ ; \
	VMOVQ         X8, AX ; \
	KMOVQ         AX, K1 /* of elements 0–15 of each block */ ; \
	VPEXTRQ       $1, X8, AX ; \
	KMOVQ         AX, K2 /* of 16–31 */ ; \
	VPSRLW        $4, Z4, Z5 ; \
	VPANDD        Z31, Z4, Z4 ; \
	VPANDD        Z31, Z5, Z5 ; \
	VPADDB        Z30, Z4, K1, Z4 /* elements 0–15, q = 0…31 */ ; \
	VPADDB        Z30, Z5, K2, Z5 /* elements 16–31 */ ; \
	VMOVDQA64     Z2, Z7 ; \
	VPDPBUSD      Z0, Z4, Z7 ; \
	VPDPBUSD      Z1, Z5, Z7 /* Σ(q−16)·a, eight products per lane */ ; \
	VCVTDQ2PS     Z7, Z7 ; \
	VCVTPH2PS     Y6, Z6 ; \
	VMULPS        Z3, Z6, Z6 /* d_w·d_a */ ; \
	VFMADD231PS   Z6, Z7, acc

// func dot4Q5_0VNNI(w0, w1, w2, w3, a *byte, quads int, out *[4]float32)
// quads ≥ 1 groups of four Q5_0 blocks from each row, times as many groups
// of four Q8_0 blocks from a; out gets the four dot products.
TEXT ·dot4Q5_0VNNI(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ quads+40(FP), CX
	Q5_0VNNI_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q5_0v4_loop:
	Q5_0VNNI_ACTS
	Q5_0VNNI_ROW(R8, Z16)
	Q5_0VNNI_ROW(R9, Z17)
	Q5_0VNNI_ROW(R10, Z18)
	Q5_0VNNI_ROW(R11, Z19)
	PF_NEXT(PF6, q5_0v4_far, q5_0v4_pf) // the next group: 4 × 88 bytes, six lines
	ADDQ       $352, DI
	ADDQ       $88, BX
	ADDQ       $136, SI
	DECQ       CX
	JNZ        q5_0v4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ5_0VNNI(w, a *byte, quads int) float32
// The same for one row.
TEXT ·dotQ5_0VNNI(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   quads+16(FP), CX
	Q5_0VNNI_SETUP
	VPXORD Z16, Z16, Z16
	XORQ   BX, BX

q5_0v1_loop:
	Q5_0VNNI_ACTS
	Q5_0VNNI_ROW(R8, Z16)
	ADDQ $88, BX
	ADDQ $136, SI
	DECQ CX
	JNZ  q5_0v1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q4_1 × Q8_0: four blocks (128 elements, 80 bytes of each row) per step,
// for one row and for four.
//
// x = d·q + m, so a block gives d_w·d_a·Σq·a + m_w·d_a·Σa. The quants are
// gathered as Q5_0's, from the tables bytes 0–63 and 16–79 of the four
// 20-byte blocks (q41gather), into Z4 (elements 0–15 of each block) and
// Z5 (16–31), and VPDPBUSD takes them as they are, unsigned 0…15. Each
// lane's Σa, times d_a, is the same for every row: computed once per step,
// it meets m_w in an FMA of its own. One word shuffle (q41dm) gives the
// scales, [d_A ×4, …, d_D ×4 | m_A ×4, …, m_D ×4].
//
// Constants: Z31 = 0x0F bytes, Z30 = 0x01 bytes, Z29 = q41gather,
// Z28 = q41dm, Z26 = q8scale4A. Per step: Z0, Z1 the activations,
// Z2 d_a·Σa per lane, Z3 d_a.

// q41gather: word w of the four blocks is word w of the first table for
// w < 32, else word w − 8 of the second, index w + 24. qs_A is words 2–9,
// qs_B 12–19, qs_C 22–29, qs_D 32–39.
DATA q41gather<>+0(SB)/8, $0x0005000400030002
DATA q41gather<>+8(SB)/8, $0x0009000800070006
DATA q41gather<>+16(SB)/8, $0x000f000e000d000c
DATA q41gather<>+24(SB)/8, $0x0013001200110010
DATA q41gather<>+32(SB)/8, $0x0019001800170016
DATA q41gather<>+40(SB)/8, $0x001d001c001b001a
DATA q41gather<>+48(SB)/8, $0x003b003a00390038
DATA q41gather<>+56(SB)/8, $0x003f003e003d003c
GLOBL q41gather<>(SB), RODATA|NOPTR, $64

// q41dm: the d of blocks A–D are words 0, 10, 20 and 30, their m words 1,
// 11, 21 and 31, each spread over its block's four sums.
DATA q41dm<>+0(SB)/8, $0x0000000000000000
DATA q41dm<>+8(SB)/8, $0x000a000a000a000a
DATA q41dm<>+16(SB)/8, $0x0014001400140014
DATA q41dm<>+24(SB)/8, $0x001e001e001e001e
DATA q41dm<>+32(SB)/8, $0x0001000100010001
DATA q41dm<>+40(SB)/8, $0x000b000b000b000b
DATA q41dm<>+48(SB)/8, $0x0015001500150015
DATA q41dm<>+56(SB)/8, $0x001f001f001f001f
GLOBL q41dm<>(SB), RODATA|NOPTR, $64

#define Q4_1VNNI_SETUP \
	MOVL         $0x0F, AX ; \
	VPBROADCASTB AX, Z31 ; \
	MOVL         $0x01, AX ; \
	VPBROADCASTB AX, Z30 ; \
	VMOVDQU64    q41gather<>(SB), Z29 ; \
	VMOVDQU64    q41dm<>(SB), Z28 ; \
	VMOVDQU64    q8scale4A<>(SB), Z26

// Q4_1VNNI_ACTS prepares the four activation blocks at SI: Z0–Z3.
#define Q4_1VNNI_ACTS \
	Q8_0VNNI4_ACTS ; \
	VPXORD       Z2, Z2, Z2 ; \
	VPDPBUSD     Z0, Z30, Z2 ; \
	VPDPBUSD     Z1, Z30, Z2 /* Σa, eight a per lane */ ; \
	VCVTDQ2PS    Z2, Z2 ; \
	VMULPS       Z3, Z2, Z2 /* d_a·Σa */

// Q4_1VNNI_ROW adds the step's products of the row at w to acc.
#define Q4_1VNNI_ROW(w, acc) \
	VMOVDQU64     (w)(BX*1), Z4 /* bytes 0–63 of the four blocks */ ; \
	VPERMW        Z4, Z28, Z6 /* f16 [d_w spread | m_w spread] */ ; \
	VPERMT2W      16(w)(BX*1), Z29, Z4 /* [qs_A | qs_B | qs_C | qs_D] */ ; \
	VPSRLW        $4, Z4, Z5 ; \
	VPANDD        Z31, Z4, Z4 /* elements 0–15 of each block */ ; \
	VPANDD        Z31, Z5, Z5 /* elements 16–31 */ ; \
	VPXORD        Z7, Z7, Z7 ; \
	VPDPBUSD      Z0, Z4, Z7 ; \
	VPDPBUSD      Z1, Z5, Z7 /* Σq·a, eight products per lane */ ; \
	VCVTDQ2PS     Z7, Z7 ; \
	VEXTRACTI64X4 $1, Z6, Y8 ; \
	VCVTPH2PS     Y6, Z6 ; \
	VCVTPH2PS     Y8, Z8 /* m_w */ ; \
	VMULPS        Z3, Z6, Z6 /* d_w·d_a */ ; \
	VFMADD231PS   Z6, Z7, acc ; \
	VFMADD231PS   Z8, Z2, acc /* + m_w·d_a·Σa */

// func dot4Q4_1VNNI(w0, w1, w2, w3, a *byte, quads int, out *[4]float32)
// quads ≥ 1 groups of four Q4_1 blocks from each row, times as many groups
// of four Q8_0 blocks from a; out gets the four dot products.
TEXT ·dot4Q4_1VNNI(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ quads+40(FP), CX
	Q4_1VNNI_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q4_1v4_loop:
	Q4_1VNNI_ACTS
	Q4_1VNNI_ROW(R8, Z16)
	Q4_1VNNI_ROW(R9, Z17)
	Q4_1VNNI_ROW(R10, Z18)
	Q4_1VNNI_ROW(R11, Z19)
	PF_NEXT(PF5, q4_1v4_far, q4_1v4_pf) // the next group: 4 × 80 bytes, five lines
	ADDQ       $320, DI
	ADDQ       $80, BX
	ADDQ       $136, SI
	DECQ       CX
	JNZ        q4_1v4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ4_1VNNI(w, a *byte, quads int) float32
// The same for one row.
TEXT ·dotQ4_1VNNI(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   quads+16(FP), CX
	Q4_1VNNI_SETUP
	VPXORD Z16, Z16, Z16
	XORQ   BX, BX

q4_1v1_loop:
	Q4_1VNNI_ACTS
	Q4_1VNNI_ROW(R8, Z16)
	ADDQ $80, BX
	ADDQ $136, SI
	DECQ CX
	JNZ  q4_1v1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q5_K × Q8_K: one super-block (256 elements, 176 bytes) per step.
//
// dot_amd64.s's Q4_K kernel, with the fifth bits joined to the nibbles.
// Its two 64-byte loads of qs give the nibbles of
//
//	Z0 = sub-blocks 0 | 2    Z1 = 1 | 3    Z2 = 4 | 6    Z3 = 5 | 7
//
// and the fifth bit of element 32s+l is bit s of qh[l]. From
//
//	H = [qh | qh >> 2]
//
// H & 0x11 holds the bits of Z0's elements in bit 0 of each byte and
// those of Z2's in bit 4; (H >> 1) & 0x11 those of Z1 and Z3 the same
// way. VPTERNLOGD $0xE4 ("0x0F ? nibble : bits", as in Q6_K) joins each
// nibble with bit 4 of the other operand, whose bits 5–7 the masks have
// cleared: Z2 and Z3 take the masked bits as they are, Z0 and Z1 after a
// shift left by 4 (the word shifts spill bits between bytes, but only
// into the bits the nibbles provide). The quants are then 0…31, and the
// rest is Q4_K's: four products per lane stay small (|4·31·128| < 2¹⁵)
// for VPACKSSDW, and the scales and mins are unpacked alike.
//
// Constants: Z31 = 0x0F bytes, Z30 = q4kSc01, Z29 = q4kSc45, Y28 = q4kMins,
// Y27 = q4kD, Z24 = [+1 ×8 | −1 ×8], Z15 = 0x11 bytes. Per step: Z20–Z23
// activations, Y25 bsums, Z26 [d_a ×8 | −d_a ×8].

// q4kSc01, q4kSc45, q4kMins, q4kD, plusMinus: as in dot_amd64.s.
DATA q4kSc01<>+0(SB)/8, $0x0000000000000000
DATA q4kSc01<>+8(SB)/8, $0x0001000100010001
DATA q4kSc01<>+16(SB)/8, $0x0000000000000000
DATA q4kSc01<>+24(SB)/8, $0x0001000100010001
DATA q4kSc01<>+32(SB)/8, $0x0002000200020002
DATA q4kSc01<>+40(SB)/8, $0x0003000300030003
DATA q4kSc01<>+48(SB)/8, $0x0002000200020002
DATA q4kSc01<>+56(SB)/8, $0x0003000300030003
GLOBL q4kSc01<>(SB), RODATA|NOPTR, $64

DATA q4kSc45<>+0(SB)/8, $0x0004000400040004
DATA q4kSc45<>+8(SB)/8, $0x0005000500050005
DATA q4kSc45<>+16(SB)/8, $0x0004000400040004
DATA q4kSc45<>+24(SB)/8, $0x0005000500050005
DATA q4kSc45<>+32(SB)/8, $0x0006000600060006
DATA q4kSc45<>+40(SB)/8, $0x0007000700070007
DATA q4kSc45<>+48(SB)/8, $0x0006000600060006
DATA q4kSc45<>+56(SB)/8, $0x0007000700070007
GLOBL q4kSc45<>(SB), RODATA|NOPTR, $64

DATA q4kMins<>+0(SB)/8, $0x0009000900080008
DATA q4kMins<>+8(SB)/8, $0x000b000b000a000a
DATA q4kMins<>+16(SB)/8, $0x000d000d000c000c
DATA q4kMins<>+24(SB)/8, $0x000f000f000e000e
GLOBL q4kMins<>(SB), RODATA|NOPTR, $32

DATA q4kD<>+0(SB)/8, $0x0000000000000000
DATA q4kD<>+8(SB)/8, $0x0000000000000000
DATA q4kD<>+16(SB)/8, $0x0001000100010001
DATA q4kD<>+24(SB)/8, $0x0001000100010001
GLOBL q4kD<>(SB), RODATA|NOPTR, $32

DATA plusMinus<>+0(SB)/8, $0x3f8000003f800000
DATA plusMinus<>+8(SB)/8, $0x3f8000003f800000
DATA plusMinus<>+16(SB)/8, $0x3f8000003f800000
DATA plusMinus<>+24(SB)/8, $0x3f8000003f800000
DATA plusMinus<>+32(SB)/8, $0xbf800000bf800000
DATA plusMinus<>+40(SB)/8, $0xbf800000bf800000
DATA plusMinus<>+48(SB)/8, $0xbf800000bf800000
DATA plusMinus<>+56(SB)/8, $0xbf800000bf800000
GLOBL plusMinus<>(SB), RODATA|NOPTR, $64

#define Q5_KVNNI_SETUP \
	MOVL         $0x0F, AX ; \
	VPBROADCASTB AX, Z31 ; \
	MOVL         $0x11, AX ; \
	VPBROADCASTB AX, Z15 ; \
	VMOVDQU64    q4kSc01<>(SB), Z30 ; \
	VMOVDQU64    q4kSc45<>(SB), Z29 ; \
	VMOVDQU64    q4kMins<>(SB), Y28 ; \
	VMOVDQU64    q4kD<>(SB), Y27 ; \
	VMOVUPS      plusMinus<>(SB), Z24

// Q5_KVNNI_ACTS arranges the activation super-block at SI as the quants
// (dot_amd64.s's Q4_KVNNI_ACTS).
#define Q5_KVNNI_ACTS \
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

// Q5_KVNNI_ROW adds the super-block of the row at w to acc.
#define Q5_KVNNI_ROW(w, acc) \
	q4kScales(w) ; \
	VPMOVZXBW     X8, Y8 /* scales and mins as words */ ; \
	VPERMW        Z8, Z30, Z9 /* scales of sub-blocks 0–3, spread */ ; \
	VPERMW        Z8, Z29, Z10 /* 4–7 */ ; \
	VPERMW        Y8, Y28, Y11 /* the mins, each twice */ ; \
	VMOVDQU       16(w)(BX*1), Y12 /* qh */ ; \
	VPSRLW        $2, Y12, Y13 ; \
	VINSERTI64X4  $1, Y13, Z12, Z12 /* H */ ; \
	VPSRLW        $1, Z12, Z13 ; \
	VPANDD        Z15, Z12, Z12 /* fifth bits: of Z0 in bit 0, of Z2 in bit 4 */ ; \
	VPANDD        Z15, Z13, Z13 /* of Z1 in bit 0, of Z3 in bit 4 */ ; \
	VMOVDQU64     48(w)(BX*1), Z0 /* chunks 0, 1 */ ; \
	VMOVDQU64     112(w)(BX*1), Z2 /* chunks 2, 3 */ ; \
	VPSRLW        $4, Z0, Z1 ; \
	VPSRLW        $4, Z2, Z3 ; \
	VPTERNLOGD    $0xE4, Z31, Z12, Z2 /* sub-blocks 4 | 6 */ ; \
	VPTERNLOGD    $0xE4, Z31, Z13, Z3 /* 5 | 7 */ ; \
	VPSLLW        $4, Z12, Z12 ; \
	VPSLLW        $4, Z13, Z13 ; \
	VPTERNLOGD    $0xE4, Z31, Z12, Z0 /* 0 | 2 */ ; \
	VPTERNLOGD    $0xE4, Z31, Z13, Z1 /* 1 | 3 */ ; \
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

// func dot4Q5_KVNNI(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)
// supers ≥ 1 super-blocks of Q5_K from each row, times as many of Q8_K
// from a; out gets the four dot products.
TEXT ·dot4Q5_KVNNI(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ supers+40(FP), CX
	Q5_KVNNI_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q5_kv4_loop:
	Q5_KVNNI_ACTS
	Q5_KVNNI_ROW(R8, Z16)
	Q5_KVNNI_ROW(R9, Z17)
	Q5_KVNNI_ROW(R10, Z18)
	Q5_KVNNI_ROW(R11, Z19)
	PF_NEXT(PF11, q5_kv4_far, q5_kv4_pf) // the next group: 4 × 176 bytes, eleven lines
	ADDQ       $704, DI
	ADDQ       $176, BX
	ADDQ       $292, SI
	DECQ       CX
	JNZ        q5_kv4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ5_KVNNI(w, a *byte, supers int) float32
// The same for one row.
TEXT ·dotQ5_KVNNI(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   supers+16(FP), CX
	Q5_KVNNI_SETUP
	VPXORD Z16, Z16, Z16
	XORQ   BX, BX

q5_kv1_loop:
	Q5_KVNNI_ACTS
	Q5_KVNNI_ROW(R8, Z16)
	ADDQ $176, BX
	ADDQ $292, SI
	DECQ CX
	JNZ  q5_kv1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET
