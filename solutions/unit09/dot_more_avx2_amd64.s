//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 kernels of Q5_0, Q4_1 (against Q8_0 activations) and Q5_K
// (against Q8_K), for processors without AVX-512 VNNI: dot_more_amd64.s's
// algorithms on 256-bit registers, with the multiply-add in two steps as
// in dot_avx2_amd64.s (VPMADDUBSW into 16-bit pairs, VPMADDWD into 32-bit
// sums), and its conventions: R8–R11 the rows, SI the activations, BX the
// offset in each row, CX groups left, DI the prefetch pointer, DX out, the
// four rows' float sums in Y9–Y12, constants from Y13 up.

// PF_SETUP and PF_NEXT: as in dot_amd64.s.
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

#define PF11(op) \
	PF3(op) ; \
	op 192(DI) ; \
	op 256(DI) ; \
	op 320(DI) ; \
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

// HSUM4, HSUM1, ZERO_ACCS: as in dot_avx2_amd64.s.
#define HSUM4 \
	VHADDPS      Y10, Y9, Y0 ; \
	VHADDPS      Y12, Y11, Y1 ; \
	VHADDPS      Y1, Y0, Y0 ; \
	VEXTRACTF128 $1, Y0, X1 ; \
	VADDPS       X1, X0, X0 ; \
	VMOVUPS      X0, (DX)

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

// Q8_0AVX2_PAIR loads a pair of Q8_0 activation blocks A, B at SI as the
// quants of two weight blocks lie: Y0 = [A 0–15 | B 0–15], Y1 =
// [A 16–31 | B 16–31], Y3 = [d_a of A ×4 | of B ×4].
#define Q8_0AVX2_PAIR \
	VMOVDQU      2(SI), X0 ; \
	VINSERTI128  $1, 36(SI), Y0, Y0 ; \
	VMOVDQU      18(SI), X1 ; \
	VINSERTI128  $1, 52(SI), Y1, Y1 ; \
	VPBROADCASTW (SI), X3 ; \
	VPBROADCASTW 34(SI), X4 ; \
	VPUNPCKLQDQ  X4, X3, X3 ; \
	VCVTPH2PS    X3, Y3

// WSCALES(w, off, size, x, y) sets y to [the f16 at off(w) ×4 | the one
// at off+size ×4] as float32: a scale of each block of the pair (blocks
// size bytes long), spread over the block's four sums. x is y's low half,
// X8 scratch.
#define WSCALES(w, off, size, x, y) \
	VPBROADCASTW off(w)(BX*1), X8 ; \
	VPBROADCASTW (off+size)(w)(BX*1), x ; \
	VPUNPCKLQDQ  x, X8, x ; \
	VCVTPH2PS    x, y

// ---------------------------------------------------------------------
// Q5_0 × Q8_0: two blocks (64 elements, 44 bytes of each row) per step.
//
// Q4_0's kernel (dot_avx2_amd64.s) with a fifth bit: the nibbles of the
// pair A, B unpack as
//
//	Y4 = [qs_A | qs_B] & 0x0F        = [A 0–15 | B 0–15]
//	Y5 = ([qs_A | qs_B] >> 4) & 0x0F = [A 16–31 | B 16–31]
//
// and the qh words, [qh_A | qh_B], are shuffled into [A 0–15, B 0–15 |
// A 16–31, B 16–31]: the fifth bits of Y4 in its byte order (bit i for
// byte i), then those of Y5. A bit becomes a byte as in llama.cpp: VPSHUFB
// copies byte i/8 of the bits into byte i (q5bitsLo, q5bitsHi), an AND
// with bitSel (1 << (i mod 8) in byte i) leaves that byte's bit, and
// VPCMPEQB with bitSel turns it into 0xFF or 0; AND 0x10 and OR add it to
// the nibble, q = 0…31. The −16 goes through the activations, as Q4_0's
// −8: VPMADDUBSW of 16s with the activations gives 16·(a_i + a_i+1), and
// the words never overflow (|2·31·128·2 + 16·4·128| < 2¹⁵).
//
// Constants: Y15 = 0x0F bytes, Y14 = 1 words, Y13 = 0x10 bytes. Per step:
// Y0, Y1 the activations, Y2 the words 16·Σa, Y3 d_a.

// q5bitsLo, q5bitsHi: VPSHUFB indices that copy byte i/8 (Lo) or 4 + i/8
// (Hi) of the qword [A 0–15, B 0–15, A 16–31, B 16–31], repeated in both
// halves, into byte i.
DATA q5bitsLo<>+0(SB)/8, $0x0000000000000000
DATA q5bitsLo<>+8(SB)/8, $0x0101010101010101
DATA q5bitsLo<>+16(SB)/8, $0x0202020202020202
DATA q5bitsLo<>+24(SB)/8, $0x0303030303030303
GLOBL q5bitsLo<>(SB), RODATA|NOPTR, $32

DATA q5bitsHi<>+0(SB)/8, $0x0404040404040404
DATA q5bitsHi<>+8(SB)/8, $0x0505050505050505
DATA q5bitsHi<>+16(SB)/8, $0x0606060606060606
DATA q5bitsHi<>+24(SB)/8, $0x0707070707070707
GLOBL q5bitsHi<>(SB), RODATA|NOPTR, $32

// bitSel: byte i holds 1 << (i mod 8).
DATA bitSel<>+0(SB)/8, $0x8040201008040201
DATA bitSel<>+8(SB)/8, $0x8040201008040201
DATA bitSel<>+16(SB)/8, $0x8040201008040201
DATA bitSel<>+24(SB)/8, $0x8040201008040201
GLOBL bitSel<>(SB), RODATA|NOPTR, $32

#define Q5_0AVX2_SETUP \
	MOVL         $0x0F, AX ; \
	VMOVD        AX, X15 ; \
	VPBROADCASTB X15, Y15 ; \
	MOVL         $1, AX ; \
	VMOVD        AX, X14 ; \
	VPBROADCASTW X14, Y14 ; \
	MOVL         $0x10, AX ; \
	VMOVD        AX, X13 ; \
	VPBROADCASTB X13, Y13

// Q5_0AVX2_ACTS prepares the activation pair at SI: Y0–Y3.
#define Q5_0AVX2_ACTS \
	Q8_0AVX2_PAIR ; \
	VPMADDUBSW Y0, Y13, Y2 ; \
	VPMADDUBSW Y1, Y13, Y4 ; \
	VPADDW     Y4, Y2, Y2 /* 16·Σa, four a per word */

// Q5_0AVX2_BITS(sel, q) adds the fifth bits that the VPSHUFB indices sel
// pick from Y6 to the nibbles q.
#define Q5_0AVX2_BITS(sel, q) \
	VPSHUFB  sel<>(SB), Y6, Y7 ; \
	VPAND    bitSel<>(SB), Y7, Y7 ; \
	VPCMPEQB bitSel<>(SB), Y7, Y7 /* 0xFF where the bit is set */ ; \
	VPAND    Y13, Y7, Y7 ; \
	VPOR     Y7, q, q

#define Q5_0AVX2_ROW(w, acc) \
	VMOVDQU      6(w)(BX*1), X4 ; \
	VINSERTI128  $1, 28(w)(BX*1), Y4, Y4 /* [qs_A | qs_B] */ ; \
	VPSRLW       $4, Y4, Y5 ; \
	VPAND        Y15, Y4, Y4 /* [A 0–15 | B 0–15] */ ; \
	VPAND        Y15, Y5, Y5 /* [A 16–31 | B 16–31] */ ; \
	VMOVD        2(w)(BX*1), X6 ; \
	VPINSRD      $1, 24(w)(BX*1), X6, X6 /* words [A 0–15, A 16–31, B 0–15, B 16–31] */ ; \
	VPSHUFLW     $0xD8, X6, X6 /* [A 0–15, B 0–15, A 16–31, B 16–31] */ ; \
	VPBROADCASTQ X6, Y6 ; \
	Q5_0AVX2_BITS(q5bitsLo, Y4) ; \
	Q5_0AVX2_BITS(q5bitsHi, Y5) ; \
	VPMADDUBSW   Y0, Y4, Y4 /* q·a, in pairs */ ; \
	VPMADDUBSW   Y1, Y5, Y5 ; \
	VPADDW       Y5, Y4, Y4 /* in fours */ ; \
	VPSUBW       Y2, Y4, Y4 /* (q−16)·a */ ; \
	VPMADDWD     Y14, Y4, Y4 /* eight sums */ ; \
	VCVTDQ2PS    Y4, Y4 ; \
	WSCALES(w, 0, 22, X5, Y5) /* d_w */ ; \
	VMULPS       Y3, Y5, Y5 /* d_w·d_a */ ; \
	VFMADD231PS  Y5, Y4, acc

// func dot4Q5_0AVX2(w0, w1, w2, w3, a *byte, pairs int, out *[4]float32)
// pairs ≥ 1 pairs of Q5_0 blocks from each row, times as many pairs of
// Q8_0 blocks from a; out gets the four dot products.
TEXT ·dot4Q5_0AVX2(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ pairs+40(FP), CX
	Q5_0AVX2_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q5_0a4_loop:
	Q5_0AVX2_ACTS
	Q5_0AVX2_ROW(R8, Y9)
	Q5_0AVX2_ROW(R9, Y10)
	Q5_0AVX2_ROW(R10, Y11)
	Q5_0AVX2_ROW(R11, Y12)
	PF_NEXT(PF3, q5_0a4_far, q5_0a4_pf) // the next group: 4 × 44 bytes
	ADDQ       $176, DI
	ADDQ       $44, BX
	ADDQ       $68, SI
	DECQ       CX
	JNZ        q5_0a4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ5_0AVX2(w, a *byte, pairs int) float32
// The same for one row.
TEXT ·dotQ5_0AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   pairs+16(FP), CX
	Q5_0AVX2_SETUP
	VXORPS Y9, Y9, Y9
	XORQ   BX, BX

q5_0a1_loop:
	Q5_0AVX2_ACTS
	Q5_0AVX2_ROW(R8, Y9)
	ADDQ $44, BX
	ADDQ $68, SI
	DECQ CX
	JNZ  q5_0a1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q4_1 × Q8_0: two blocks (64 elements, 40 bytes of each row) per step.
//
// A block gives d_w·d_a·Σq·a + m_w·d_a·Σa. The quants unpack as Q4_0's
// and meet the activations unsigned, as they are; d_a·Σa, per lane, is
// computed once per step (VPMADDUBSW of 1s with the activations) and
// meets m_w in an FMA of its own.
//
// Constants: Y15 = 0x0F bytes, Y14 = 1 words, Y13 = 1 bytes. Per step:
// Y0, Y1 the activations, Y2 d_a·Σa per lane, Y3 d_a.

#define Q4_1AVX2_SETUP \
	MOVL         $0x0F, AX ; \
	VMOVD        AX, X15 ; \
	VPBROADCASTB X15, Y15 ; \
	MOVL         $1, AX ; \
	VMOVD        AX, X14 ; \
	VPBROADCASTW X14, Y14 ; \
	VPBROADCASTB X14, Y13

// Q4_1AVX2_ACTS prepares the activation pair at SI: Y0–Y3.
#define Q4_1AVX2_ACTS \
	Q8_0AVX2_PAIR ; \
	VPMADDUBSW Y0, Y13, Y2 ; \
	VPMADDUBSW Y1, Y13, Y4 ; \
	VPADDW     Y4, Y2, Y2 ; \
	VPMADDWD   Y14, Y2, Y2 /* Σa, eight a per lane */ ; \
	VCVTDQ2PS  Y2, Y2 ; \
	VMULPS     Y3, Y2, Y2 /* d_a·Σa */

#define Q4_1AVX2_ROW(w, acc) \
	VMOVDQU     4(w)(BX*1), X4 ; \
	VINSERTI128 $1, 24(w)(BX*1), Y4, Y4 /* [qs_A | qs_B] */ ; \
	VPSRLW      $4, Y4, Y5 ; \
	VPAND       Y15, Y4, Y4 /* [A 0–15 | B 0–15] */ ; \
	VPAND       Y15, Y5, Y5 /* [A 16–31 | B 16–31] */ ; \
	VPMADDUBSW  Y0, Y4, Y4 /* q·a, in pairs */ ; \
	VPMADDUBSW  Y1, Y5, Y5 ; \
	VPADDW      Y5, Y4, Y4 /* in fours (|2·2·15·128| < 2¹⁵) */ ; \
	VPMADDWD    Y14, Y4, Y4 /* eight sums */ ; \
	VCVTDQ2PS   Y4, Y4 ; \
	WSCALES(w, 0, 20, X5, Y5) /* d_w */ ; \
	VMULPS      Y3, Y5, Y5 /* d_w·d_a */ ; \
	VFMADD231PS Y5, Y4, acc ; \
	WSCALES(w, 2, 20, X6, Y6) /* m_w */ ; \
	VFMADD231PS Y6, Y2, acc /* + m_w·d_a·Σa */

// func dot4Q4_1AVX2(w0, w1, w2, w3, a *byte, pairs int, out *[4]float32)
// pairs ≥ 1 pairs of Q4_1 blocks from each row, times as many pairs of
// Q8_0 blocks from a; out gets the four dot products.
TEXT ·dot4Q4_1AVX2(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ pairs+40(FP), CX
	Q4_1AVX2_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q4_1a4_loop:
	Q4_1AVX2_ACTS
	Q4_1AVX2_ROW(R8, Y9)
	Q4_1AVX2_ROW(R9, Y10)
	Q4_1AVX2_ROW(R10, Y11)
	Q4_1AVX2_ROW(R11, Y12)
	PF_NEXT(PF3, q4_1a4_far, q4_1a4_pf) // the next group: 4 × 40 bytes
	ADDQ       $160, DI
	ADDQ       $40, BX
	ADDQ       $68, SI
	DECQ       CX
	JNZ        q4_1a4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ4_1AVX2(w, a *byte, pairs int) float32
// The same for one row.
TEXT ·dotQ4_1AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   pairs+16(FP), CX
	Q4_1AVX2_SETUP
	VXORPS Y9, Y9, Y9
	XORQ   BX, BX

q4_1a1_loop:
	Q4_1AVX2_ACTS
	Q4_1AVX2_ROW(R8, Y9)
	ADDQ $40, BX
	ADDQ $68, SI
	DECQ CX
	JNZ  q4_1a1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ---------------------------------------------------------------------
// Q5_K × Q8_K: one super-block per step.
//
// dot_avx2_amd64.s's Q4_K kernel with the fifth bits. Chunk c of qs gives
// sub-block 2c in its low nibbles and 2c+1 in its high ones; their fifth
// bits are bits 2c and 2c+1 of qh[0…31], loaded once per row (Y5). A
// shift of the qh bytes moves bit 2c (or 2c+1) to bit 4, where an AND
// with 0x10 keeps it alone and an OR joins it to the nibble: q = 0…31.
// The shift is left by 4 − 2c (3 − 2c) or right by 2c − 4 (2c − 3); the
// word shifts spill bits between bytes, but never into bit 4. With quants
// of at most 31, VPMADDUBSW's pairs stay far from saturating.
//
// Constants: Y15 = 0x0F bytes, Y13 = 0x10 bytes. Per step: Y14 d_a ×8.
// Per row: Y7 the scales as words [sc0–7 | sc0–7], Y6 the mins [m0, m0,
// …, m7, m7], Y5 qh, Y0 the integer sums.

// q4kSub, q4kMinsY: as in dot_avx2_amd64.s, VPSHUFB indices that repeat
// word s of a half (32 bytes per s), and that turn [m0–7 | m0–7] into
// [m0, m0, …, m3, m3 | m4, m4, …, m7, m7].
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

// Q5_KAVX2_CHUNK adds chunk c of the row at w: quants at qoff, the
// activations of its two sub-blocks at aoff and aoff+32, their scales
// spread by the q4kSub tables at soff and soff+32; shlo $nlo and shhi
// $nhi move the fifth bits of the two sub-blocks to bit 4.
#define Q5_KAVX2_CHUNK(w, qoff, aoff, soff, shlo, nlo, shhi, nhi) \
	VMOVDQU    qoff(w)(BX*1), Y1 ; \
	VPSRLW     $4, Y1, Y2 ; \
	VPAND      Y15, Y1, Y1 ; \
	VPAND      Y15, Y2, Y2 ; \
	shlo       $nlo, Y5, Y3 ; \
	VPAND      Y13, Y3, Y3 ; \
	VPOR       Y3, Y1, Y1 /* sub-block 2c */ ; \
	shhi       $nhi, Y5, Y4 ; \
	VPAND      Y13, Y4, Y4 ; \
	VPOR       Y4, Y2, Y2 /* 2c+1 */ ; \
	VPMADDUBSW aoff(SI), Y1, Y1 ; \
	VPMADDUBSW (aoff+32)(SI), Y2, Y2 ; \
	VPSHUFB    q4kSub<>+soff(SB), Y7, Y3 ; \
	VPMADDWD   Y3, Y1, Y1 /* × sc_2c */ ; \
	VPSHUFB    q4kSub<>+(soff+32)(SB), Y7, Y4 ; \
	VPMADDWD   Y4, Y2, Y2 /* × sc_2c+1 */ ; \
	VPADDD     Y1, Y0, Y0 ; \
	VPADDD     Y2, Y0, Y0

#define Q5_KAVX2_ROW(w, acc) \
	q4kScales(w) ; \
	VPMOVZXBW    X8, Y8 /* [sc0–7 | m0–7] as words */ ; \
	VPERMQ       $0x44, Y8, Y7 /* [sc0–7 | sc0–7] */ ; \
	VPERMQ       $0xEE, Y8, Y6 /* [m0–7 | m0–7] */ ; \
	VPSHUFB      q4kMinsY<>(SB), Y6, Y6 ; \
	VMOVDQU      16(w)(BX*1), Y5 /* qh */ ; \
	VPXOR        Y0, Y0, Y0 ; \
	Q5_KAVX2_CHUNK(w, 48, 4, 0, VPSLLW, 4, VPSLLW, 3) ; \
	Q5_KAVX2_CHUNK(w, 80, 68, 64, VPSLLW, 2, VPSLLW, 1) ; \
	Q5_KAVX2_CHUNK(w, 112, 132, 128, VPSRLW, 0, VPSRLW, 1) ; \
	Q5_KAVX2_CHUNK(w, 144, 196, 192, VPSRLW, 2, VPSRLW, 3) ; \
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

#define Q5_KAVX2_SETUP \
	MOVL         $0x0F, AX ; \
	VMOVD        AX, X15 ; \
	VPBROADCASTB X15, Y15 ; \
	MOVL         $0x10, AX ; \
	VMOVD        AX, X13 ; \
	VPBROADCASTB X13, Y13

// func dot4Q5_KAVX2(w0, w1, w2, w3, a *byte, supers int, out *[4]float32)
// supers ≥ 1 super-blocks of Q5_K from each row, times as many of Q8_K
// from a; out gets the four dot products.
TEXT ·dot4Q5_KAVX2(SB), NOSPLIT, $8-56
	MOVQ w0+0(FP), R8
	MOVQ w1+8(FP), R9
	MOVQ w2+16(FP), R10
	MOVQ w3+24(FP), R11
	MOVQ a+32(FP), SI
	MOVQ supers+40(FP), CX
	Q5_KAVX2_SETUP
	PF_SETUP
	ZERO_ACCS
	XORQ BX, BX

q5_ka4_loop:
	VBROADCASTSS (SI), Y14
	Q5_KAVX2_ROW(R8, Y9)
	Q5_KAVX2_ROW(R9, Y10)
	Q5_KAVX2_ROW(R10, Y11)
	Q5_KAVX2_ROW(R11, Y12)
	PF_NEXT(PF11, q5_ka4_far, q5_ka4_pf) // the next group: 4 × 176 bytes, eleven lines
	ADDQ         $704, DI
	ADDQ         $176, BX
	ADDQ         $292, SI
	DECQ         CX
	JNZ          q5_ka4_loop

	MOVQ out+48(FP), DX
	HSUM4
	VZEROUPPER
	RET

// func dotQ5_KAVX2(w, a *byte, supers int) float32
// The same for one row.
TEXT ·dotQ5_KAVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), R8
	MOVQ   a+8(FP), SI
	MOVQ   supers+16(FP), CX
	Q5_KAVX2_SETUP
	VXORPS Y9, Y9, Y9
	XORQ   BX, BX

q5_ka1_loop:
	VBROADCASTSS (SI), Y14
	Q5_KAVX2_ROW(R8, Y9)
	ADDQ         $176, BX
	ADDQ         $292, SI
	DECQ         CX
	JNZ          q5_ka1_loop

	HSUM1
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET
