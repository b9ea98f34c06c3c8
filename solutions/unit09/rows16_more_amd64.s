//go:build amd64 && !purego

#include "textflag.h"

// The 16-row kernels of the types rows16_amd64.s leaves over: Q8_0 and Q5_0
// (against Q8_0 activations) and Q4_K (against Q8_K), on AVX-512 VNNI. They follow
// rows16_amd64.s: one weight row per lane, the activations' bytes
// broadcast, each packed block unpacked once for all the activation rows
// of a call, exact integer sums per block, and the same float instructions
// for every lane in every kernel, so a row's result does not depend on its
// batch.

// ---------------------------------------------------------------------
// Q8_0 × Q8_0.
//
// A packed block (pack16Q8_0) holds the sixteen rows' f16 scales (32
// bytes), then eight chunks of 64 bytes, chunk c holding quants 4c…4c+3 of
// each row (row i at 4i), stored as q+128 (q XOR 0x80): VPDPBUSD's
// unsigned operand, with nothing to unpack. Eight VPDPBUSD with the
// activation's matching four bytes broadcast make Σ(q+128)·a per lane,
// starting from −128·Σa (prepareSums), which is Σq·a; then one conversion,
// one multiply by d_w·d_a and one FMA per row, as Q4_0's.
//
// Registers: SI the packed blocks, CX blocks left, BX the offset of the
// block in each activation row (34 per block), DX in each row of sums (8),
// R8–R11 the activation rows, R12–R15 their sums, Z0–Z7 the quants, Z20
// d_w.

// Q8_16LOAD loads the packed block at SI into Z0–Z7 and Z20.
#define Q8_16LOAD \
	VCVTPH2PS (SI), Z20 ; \
	VMOVDQU64 32(SI), Z0 ; \
	VMOVDQU64 96(SI), Z1 ; \
	VMOVDQU64 160(SI), Z2 ; \
	VMOVDQU64 224(SI), Z3 ; \
	VMOVDQU64 288(SI), Z4 ; \
	VMOVDQU64 352(SI), Z5 ; \
	VMOVDQU64 416(SI), Z6 ; \
	VMOVDQU64 480(SI), Z7

// Q8_16ROW adds the block's products with the activation row at address
// a (its sums at address s, the block's offsets already in both) to acc,
// using isum as scratch and Z25 for d_w·d_a. The eight products go into
// two sums, joined before the conversion: integers, so the order is free,
// and the chains half as long for one activation row.
#define Q8_16ROW(a, s, isum, isum2, acc) \
	VPBROADCASTD      s, isum /* −128·Σa */ ; \
	VPDPBUSD.BCST     2 a, Z0, isum ; \
	VPXORD            isum2, isum2, isum2 ; \
	VPDPBUSD.BCST     6 a, Z1, isum2 ; \
	VPDPBUSD.BCST     10 a, Z2, isum ; \
	VPDPBUSD.BCST     14 a, Z3, isum2 ; \
	VPDPBUSD.BCST     18 a, Z4, isum ; \
	VPDPBUSD.BCST     22 a, Z5, isum2 ; \
	VPDPBUSD.BCST     26 a, Z6, isum ; \
	VPDPBUSD.BCST     30 a, Z7, isum2 ; \
	VPADDD            isum2, isum, isum ; \
	VCVTDQ2PS         isum, isum ; \
	VMULPS.BCST       4 s, Z20, Z25 /* d_w·d_a */ ; \
	VFMADD231PS       Z25, isum, acc

// Q8_16PF prefetches the packed block at DI (544 bytes) into L2 and moves
// DI on.
#define Q8_16PF \
	PREFETCHT1 (DI) ; \
	PREFETCHT1 64(DI) ; \
	PREFETCHT1 128(DI) ; \
	PREFETCHT1 192(DI) ; \
	PREFETCHT1 256(DI) ; \
	PREFETCHT1 320(DI) ; \
	PREFETCHT1 384(DI) ; \
	PREFETCHT1 448(DI) ; \
	PREFETCHT1 512(DI) ; \
	ADDQ       $544, DI

// func rows16x4Q8_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)
// blocks ≥ 1 packed blocks at w times four activation rows (a, a+astride,
// …) with their sums (s, s+sstride, …); row r's sixteen dot products go to
// y + r·ystride bytes.
TEXT ·rows16x4Q8_0(SB), NOSPLIT, $0-64
	MOVQ   w+0(FP), SI
	MOVQ   blocks+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   astride+24(FP), AX
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	LEAQ   (R10)(AX*1), R11
	MOVQ   s+32(FP), R12
	MOVQ   sstride+40(FP), AX
	LEAQ   (R12)(AX*1), R13
	LEAQ   (R13)(AX*1), R14
	LEAQ   (R14)(AX*1), R15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	XORQ   BX, BX
	XORQ   DX, DX
	IMUL3Q $544, CX, DI
	ADDQ   SI, DI

rows16x4q8_loop:
	Q8_16PF
	Q8_16LOAD
	Q8_16ROW((R8)(BX*1), (R12)(DX*1), Z8, Z9, Z16)
	Q8_16ROW((R9)(BX*1), (R13)(DX*1), Z10, Z11, Z17)
	Q8_16ROW((R10)(BX*1), (R14)(DX*1), Z12, Z13, Z18)
	Q8_16ROW((R11)(BX*1), (R15)(DX*1), Z14, Z15, Z19)
	ADDQ $544, SI
	ADDQ $34, BX
	ADDQ $8, DX
	DECQ CX
	JNZ  rows16x4q8_loop

	MOVQ    y+48(FP), DI
	MOVQ    ystride+56(FP), AX
	VMOVUPS Z16, (DI)
	ADDQ    AX, DI
	VMOVUPS Z17, (DI)
	ADDQ    AX, DI
	VMOVUPS Z18, (DI)
	ADDQ    AX, DI
	VMOVUPS Z19, (DI)
	VZEROUPPER
	RET

// func rows16x8Q8_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)
// rows16x4Q8_0 for eight activation rows, each block loaded once for the
// eight. Rows r and r+4 are at R8+r·astride and four strides further,
// (R8+r·astride)(AX*4); the sums likewise with BX; the pointers move on
// block by block (rows16x8Q4_0's plan).
TEXT ·rows16x8Q8_0(SB), NOSPLIT, $0-64
	MOVQ   w+0(FP), SI
	MOVQ   blocks+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   astride+24(FP), AX
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	LEAQ   (R10)(AX*1), R11
	MOVQ   s+32(FP), R12
	MOVQ   sstride+40(FP), BX
	LEAQ   (R12)(BX*1), R13
	LEAQ   (R13)(BX*1), R14
	LEAQ   (R14)(BX*1), R15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	IMUL3Q $544, CX, DI
	ADDQ   SI, DI

rows16x8q8_loop:
	Q8_16PF
	Q8_16LOAD
	Q8_16ROW((R8), (R12), Z8, Z9, Z16)
	Q8_16ROW((R9), (R13), Z10, Z11, Z17)
	Q8_16ROW((R10), (R14), Z12, Z13, Z18)
	Q8_16ROW((R11), (R15), Z14, Z15, Z19)
	Q8_16ROW((R8)(AX*4), (R12)(BX*4), Z8, Z9, Z21)
	Q8_16ROW((R9)(AX*4), (R13)(BX*4), Z10, Z11, Z22)
	Q8_16ROW((R10)(AX*4), (R14)(BX*4), Z12, Z13, Z23)
	Q8_16ROW((R11)(AX*4), (R15)(BX*4), Z14, Z15, Z24)
	ADDQ $544, SI
	ADDQ $34, R8
	ADDQ $34, R9
	ADDQ $34, R10
	ADDQ $34, R11
	ADDQ $8, R12
	ADDQ $8, R13
	ADDQ $8, R14
	ADDQ $8, R15
	DECQ CX
	JNZ  rows16x8q8_loop

	MOVQ    y+48(FP), DI
	MOVQ    ystride+56(FP), AX
	VMOVUPS Z16, (DI)
	ADDQ    AX, DI
	VMOVUPS Z17, (DI)
	ADDQ    AX, DI
	VMOVUPS Z18, (DI)
	ADDQ    AX, DI
	VMOVUPS Z19, (DI)
	ADDQ    AX, DI
	VMOVUPS Z21, (DI)
	ADDQ    AX, DI
	VMOVUPS Z22, (DI)
	ADDQ    AX, DI
	VMOVUPS Z23, (DI)
	ADDQ    AX, DI
	VMOVUPS Z24, (DI)
	VZEROUPPER
	RET

// func rows16x1Q8_0(w *byte, blocks int, a *byte, s *byte, y *float32)
// The same for one activation row: a decode step.
TEXT ·rows16x1Q8_0(SB), NOSPLIT, $0-40
	MOVQ   w+0(FP), SI
	MOVQ   blocks+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   s+24(FP), R12
	VPXORD Z16, Z16, Z16
	XORQ   BX, BX
	XORQ   DX, DX

rows16x1q8_loop:
	Q8_16LOAD
	Q8_16ROW((R8)(BX*1), (R12)(DX*1), Z8, Z9, Z16)
	ADDQ $544, SI
	ADDQ $34, BX
	ADDQ $8, DX
	DECQ CX
	JNZ  rows16x1q8_loop

	MOVQ    y+32(FP), DI
	VMOVUPS Z16, (DI)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// Q5_0 × Q8_0.
//
// A packed block (pack16Q5_0) is a packed Q4_0 block, the sixteen rows'
// f16 scales and four chunks of their low nibbles (chunk c: bytes 4c…4c+3
// of each row's qs), followed by eight 64-bit masks of the fifth bits:
// mask k has bit 4i+b set where element 4k+b of row i has its fifth bit,
// so that it lines up, byte for byte, with Z_k, the register of elements
// 4k…4k+3 of every row (k < 4: chunk k masked with 0x0F; k ≥ 4: chunk
// k−4 shifted right by 4 and masked). Loaded into a mask register (KMOVQ),
// it selects the bytes a masked VPADDB adds 16 to, which gives the quants
// q = 0…31, as dot_more_amd64.s does with qh; the −16 comes in through the
// sums, −16·Σa (prepareSums), and the rest is Q8_0's (Q8_16ROW).
//
// Registers: as Q8_0's; Z30 0x10 bytes, Z31 0x0F bytes, K1 and K2 the
// masks.

#define Q5_16SETUP \
	MOVL         $0x0F, AX ; \
	VPBROADCASTB AX, Z31 ; \
	MOVL         $0x10, AX ; \
	VPBROADCASTB AX, Z30

// Q5_16UNPACK unpacks the packed block at SI into Z0–Z7 and Z20.
#define Q5_16UNPACK \
	VCVTPH2PS (SI), Z20 ; \
	VPANDD    32(SI), Z31, Z0 ; \
	KMOVQ     288(SI), K1 ; \
	VPADDB    Z30, Z0, K1, Z0 ; \
	VPANDD    96(SI), Z31, Z1 ; \
	KMOVQ     296(SI), K2 ; \
	VPADDB    Z30, Z1, K2, Z1 ; \
	VPANDD    160(SI), Z31, Z2 ; \
	KMOVQ     304(SI), K1 ; \
	VPADDB    Z30, Z2, K1, Z2 ; \
	VPANDD    224(SI), Z31, Z3 ; \
	KMOVQ     312(SI), K2 ; \
	VPADDB    Z30, Z3, K2, Z3 ; \
	VPSRLW    $4, 32(SI), Z4 ; \
	VPANDD    Z31, Z4, Z4 ; \
	KMOVQ     320(SI), K1 ; \
	VPADDB    Z30, Z4, K1, Z4 ; \
	VPSRLW    $4, 96(SI), Z5 ; \
	VPANDD    Z31, Z5, Z5 ; \
	KMOVQ     328(SI), K2 ; \
	VPADDB    Z30, Z5, K2, Z5 ; \
	VPSRLW    $4, 160(SI), Z6 ; \
	VPANDD    Z31, Z6, Z6 ; \
	KMOVQ     336(SI), K1 ; \
	VPADDB    Z30, Z6, K1, Z6 ; \
	VPSRLW    $4, 224(SI), Z7 ; \
	VPANDD    Z31, Z7, Z7 ; \
	KMOVQ     344(SI), K2 ; \
	VPADDB    Z30, Z7, K2, Z7

// Q5_16PF prefetches the packed block at DI (352 bytes) into L2 and moves
// DI on.
#define Q5_16PF \
	PREFETCHT1 (DI) ; \
	PREFETCHT1 64(DI) ; \
	PREFETCHT1 128(DI) ; \
	PREFETCHT1 192(DI) ; \
	PREFETCHT1 256(DI) ; \
	PREFETCHT1 320(DI) ; \
	ADDQ       $352, DI

// func rows16x4Q5_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)
// blocks ≥ 1 packed blocks at w times four activation rows (a, a+astride,
// …) with their sums (s, s+sstride, …); row r's sixteen dot products go to
// y + r·ystride bytes.
TEXT ·rows16x4Q5_0(SB), NOSPLIT, $0-64
	MOVQ   w+0(FP), SI
	MOVQ   blocks+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   astride+24(FP), AX
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	LEAQ   (R10)(AX*1), R11
	MOVQ   s+32(FP), R12
	MOVQ   sstride+40(FP), AX
	LEAQ   (R12)(AX*1), R13
	LEAQ   (R13)(AX*1), R14
	LEAQ   (R14)(AX*1), R15
	Q5_16SETUP
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	XORQ   BX, BX
	XORQ   DX, DX
	IMUL3Q $352, CX, DI
	ADDQ   SI, DI

rows16x4q5_loop:
	Q5_16PF
	Q5_16UNPACK
	Q8_16ROW((R8)(BX*1), (R12)(DX*1), Z8, Z9, Z16)
	Q8_16ROW((R9)(BX*1), (R13)(DX*1), Z10, Z11, Z17)
	Q8_16ROW((R10)(BX*1), (R14)(DX*1), Z12, Z13, Z18)
	Q8_16ROW((R11)(BX*1), (R15)(DX*1), Z14, Z15, Z19)
	ADDQ $352, SI
	ADDQ $34, BX
	ADDQ $8, DX
	DECQ CX
	JNZ  rows16x4q5_loop

	MOVQ    y+48(FP), DI
	MOVQ    ystride+56(FP), AX
	VMOVUPS Z16, (DI)
	ADDQ    AX, DI
	VMOVUPS Z17, (DI)
	ADDQ    AX, DI
	VMOVUPS Z18, (DI)
	ADDQ    AX, DI
	VMOVUPS Z19, (DI)
	VZEROUPPER
	RET

// func rows16x8Q5_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)
// rows16x4Q5_0 for eight activation rows (rows16x8Q8_0's plan).
TEXT ·rows16x8Q5_0(SB), NOSPLIT, $0-64
	MOVQ   w+0(FP), SI
	MOVQ   blocks+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   astride+24(FP), DX
	LEAQ   (R8)(DX*1), R9
	LEAQ   (R9)(DX*1), R10
	LEAQ   (R10)(DX*1), R11
	MOVQ   s+32(FP), R12
	MOVQ   sstride+40(FP), BX
	LEAQ   (R12)(BX*1), R13
	LEAQ   (R13)(BX*1), R14
	LEAQ   (R14)(BX*1), R15
	Q5_16SETUP
	MOVQ   DX, AX
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	IMUL3Q $352, CX, DI
	ADDQ   SI, DI

rows16x8q5_loop:
	Q5_16PF
	Q5_16UNPACK
	Q8_16ROW((R8), (R12), Z8, Z9, Z16)
	Q8_16ROW((R9), (R13), Z10, Z11, Z17)
	Q8_16ROW((R10), (R14), Z12, Z13, Z18)
	Q8_16ROW((R11), (R15), Z14, Z15, Z19)
	Q8_16ROW((R8)(AX*4), (R12)(BX*4), Z8, Z9, Z21)
	Q8_16ROW((R9)(AX*4), (R13)(BX*4), Z10, Z11, Z22)
	Q8_16ROW((R10)(AX*4), (R14)(BX*4), Z12, Z13, Z23)
	Q8_16ROW((R11)(AX*4), (R15)(BX*4), Z14, Z15, Z24)
	ADDQ $352, SI
	ADDQ $34, R8
	ADDQ $34, R9
	ADDQ $34, R10
	ADDQ $34, R11
	ADDQ $8, R12
	ADDQ $8, R13
	ADDQ $8, R14
	ADDQ $8, R15
	DECQ CX
	JNZ  rows16x8q5_loop

	MOVQ    y+48(FP), DI
	MOVQ    ystride+56(FP), AX
	VMOVUPS Z16, (DI)
	ADDQ    AX, DI
	VMOVUPS Z17, (DI)
	ADDQ    AX, DI
	VMOVUPS Z18, (DI)
	ADDQ    AX, DI
	VMOVUPS Z19, (DI)
	ADDQ    AX, DI
	VMOVUPS Z21, (DI)
	ADDQ    AX, DI
	VMOVUPS Z22, (DI)
	ADDQ    AX, DI
	VMOVUPS Z23, (DI)
	ADDQ    AX, DI
	VMOVUPS Z24, (DI)
	VZEROUPPER
	RET

// func rows16x1Q5_0(w *byte, blocks int, a *byte, s *byte, y *float32)
// The same for one activation row: a decode step.
TEXT ·rows16x1Q5_0(SB), NOSPLIT, $0-40
	MOVQ   w+0(FP), SI
	MOVQ   blocks+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   s+24(FP), R12
	Q5_16SETUP
	VPXORD Z16, Z16, Z16
	XORQ   BX, BX
	XORQ   DX, DX

rows16x1q5_loop:
	Q5_16UNPACK
	Q8_16ROW((R8)(BX*1), (R12)(DX*1), Z8, Z9, Z16)
	ADDQ $352, SI
	ADDQ $34, BX
	ADDQ $8, DX
	DECQ CX
	JNZ  rows16x1q5_loop

	MOVQ    y+32(FP), DI
	VMOVUPS Z16, (DI)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// Q4_K × Q8_K.
//
// A packed super-block (pack16Q4_K) holds the sixteen rows' f16 d and
// dmin (32 bytes each), their sub-block scales as bytes, sub-block s of
// all rows at 64+16s, their mins as byte pairs (2k, 2k+1) at 192+32k, then
// per chunk c of the file's quants eight 64-byte chunks at 320+512c+64t,
// bytes 4t…4t+3 of each row's chunk c. Masked with 0x0F a chunk is four
// quants of sub-block 2c of each row; masked with 0xF0 it is four quants
// of sub-block 2c+1, times sixteen, still a byte: no shift. Eight VPDPBUSD
// with the sub-block's activations broadcast give each lane Σq·a of the
// sub-block (times sixteen for odd s), VPMULLD by the row's scale (times
// sixteen for even s, so that every sub-block comes out sixteen times too
// large) and VPADDD keep an exact sum over the super-block, 16·Σ_s
// sc_s·Σq·a (|·| ≤ 8·32·15·128·63·16 < 2³¹). The mins need Σ_s m_s·Σa of
// the sub-block: the mins widened to words, pairs per lane, meet the
// activations' sub-block sums (prepareSums: int16 pairs) in four VPDPWSSD.
// Then, per lane,
//
//	acc += d_a·((d/16)·isum − dmin·msum)
//
// (d/16 is exact), two conversions, a multiply and two FMAs per row.
//
// Registers: SI the packed super-blocks, CX super-blocks left, BX the
// offset of the super-block in each activation row (292 each), DX in each
// row of sums (16), R8–R11 the activation rows, R12–R15 their sums; Z0–Z7
// the quants of a sub-block, Z8 its scales, Z9 and Z26 scratch; Z10–Z17
// the rows' integer sums, Z18–Z25 their dot products; Z29 1/16, Z30 0xF0
// bytes, Z31 0x0F bytes. The fold reuses Z0–Z6.

#define K4_16SETUP \
	MOVL         $0x0F, AX ; \
	VPBROADCASTB AX, Z31 ; \
	MOVL         $0xF0, AX ; \
	VPBROADCASTB AX, Z30 ; \
	MOVL         $0x3D800000, AX /* 1/16 */ ; \
	VPBROADCASTD AX, Z29

// K4_16UNPACK leaves in Z0–Z7 the chunks at off(SI) masked with mask.
#define K4_16UNPACK(off, mask) \
	VPANDD off(SI), mask, Z0 ; \
	VPANDD off+64(SI), mask, Z1 ; \
	VPANDD off+128(SI), mask, Z2 ; \
	VPANDD off+192(SI), mask, Z3 ; \
	VPANDD off+256(SI), mask, Z4 ; \
	VPANDD off+320(SI), mask, Z5 ; \
	VPANDD off+384(SI), mask, Z6 ; \
	VPANDD off+448(SI), mask, Z7

// K4_16SCLO and K4_16SCHI load sub-block sub's scales into Z8, times
// sixteen for an even sub-block (low nibbles).
#define K4_16SCLO(sub) \
	VPMOVZXBD 64+16*sub(SI), Z8 ; \
	VPSLLD    $4, Z8, Z8

#define K4_16SCHI(sub) \
	VPMOVZXBD 64+16*sub(SI), Z8

// K4_16ROW adds sub-block sub's scaled sum with the activation row at
// address a (the super-block's offset in it) to iacc, using isum as
// scratch.
#define K4_16ROW(sub, a, isum, iacc) \
	VPXORD        isum, isum, isum ; \
	VPDPBUSD.BCST 4+32*sub a, Z0, isum ; \
	VPDPBUSD.BCST 8+32*sub a, Z1, isum ; \
	VPDPBUSD.BCST 12+32*sub a, Z2, isum ; \
	VPDPBUSD.BCST 16+32*sub a, Z3, isum ; \
	VPDPBUSD.BCST 20+32*sub a, Z4, isum ; \
	VPDPBUSD.BCST 24+32*sub a, Z5, isum ; \
	VPDPBUSD.BCST 28+32*sub a, Z6, isum ; \
	VPDPBUSD.BCST 32+32*sub a, Z7, isum ; \
	VPMULLD       Z8, isum, isum ; \
	VPADDD        isum, iacc, iacc

// K4_16ROW2 is K4_16ROW in two chains of four, for one activation row,
// whose products would otherwise wait on each other.
#define K4_16ROW2(sub, a, iacc) \
	VPXORD        Z9, Z9, Z9 ; \
	VPXORD        Z26, Z26, Z26 ; \
	VPDPBUSD.BCST 4+32*sub a, Z0, Z9 ; \
	VPDPBUSD.BCST 8+32*sub a, Z1, Z26 ; \
	VPDPBUSD.BCST 12+32*sub a, Z2, Z9 ; \
	VPDPBUSD.BCST 16+32*sub a, Z3, Z26 ; \
	VPDPBUSD.BCST 20+32*sub a, Z4, Z9 ; \
	VPDPBUSD.BCST 24+32*sub a, Z5, Z26 ; \
	VPDPBUSD.BCST 28+32*sub a, Z6, Z9 ; \
	VPDPBUSD.BCST 32+32*sub a, Z7, Z26 ; \
	VPADDD        Z26, Z9, Z9 ; \
	VPMULLD       Z8, Z9, Z9 ; \
	VPADDD        Z9, iacc, iacc

// K4_16FOLDPREP loads the mins into Z0–Z3 (word pairs), d/16 into Z4 and
// dmin into Z5.
#define K4_16FOLDPREP \
	VPMOVZXBW 192(SI), Z0 ; \
	VPMOVZXBW 224(SI), Z1 ; \
	VPMOVZXBW 256(SI), Z2 ; \
	VPMOVZXBW 288(SI), Z3 ; \
	VCVTPH2PS (SI), Z4 ; \
	VMULPS    Z29, Z4, Z4 ; \
	VCVTPH2PS 32(SI), Z5

// K4_16FOLD adds the super-block of the activation row at address a (its
// sums at address s) to acc: iacc, then msum in Z6.
#define K4_16FOLD(a, s, iacc, acc) \
	VPXORD           Z6, Z6, Z6 ; \
	VPDPWSSD.BCST    0 s, Z0, Z6 ; \
	VPDPWSSD.BCST    4 s, Z1, Z6 ; \
	VPDPWSSD.BCST    8 s, Z2, Z6 ; \
	VPDPWSSD.BCST    12 s, Z3, Z6 /* Σ m·Σa */ ; \
	VCVTDQ2PS        iacc, iacc ; \
	VMULPS           Z4, iacc, iacc ; \
	VCVTDQ2PS        Z6, Z6 ; \
	VFNMADD231PS     Z5, Z6, iacc ; \
	VFMADD231PS.BCST 0 a, iacc, acc

// K4_16PF(sub) prefetches five lines of the next group's super-block at
// DI, the sub-th five: forty lines over the eight sub-blocks cover its
// 2368 bytes.
#define K4_16PF(sub) \
	PREFETCHT1 320*sub(DI) ; \
	PREFETCHT1 320*sub+64(DI) ; \
	PREFETCHT1 320*sub+128(DI) ; \
	PREFETCHT1 320*sub+192(DI) ; \
	PREFETCHT1 320*sub+256(DI)

// K4_16SUB4 is sub-block sub (chunk offset off, mask, scales sc) for
// four activation rows.
#define K4_16SUB4(sub, off, mask, sc) \
	K4_16PF(sub) ; \
	K4_16UNPACK(off, mask) ; \
	sc(sub) ; \
	K4_16ROW(sub, (R8)(BX*1), Z9, Z10) ; \
	K4_16ROW(sub, (R9)(BX*1), Z26, Z11) ; \
	K4_16ROW(sub, (R10)(BX*1), Z9, Z12) ; \
	K4_16ROW(sub, (R11)(BX*1), Z26, Z13)

// func rows16x4Q4_K(w *byte, supers int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)
// supers ≥ 1 packed super-blocks at w times four activation rows (a,
// a+astride, …) with their sums (s, s+sstride, …); row r's sixteen dot
// products go to y + r·ystride bytes.
TEXT ·rows16x4Q4_K(SB), NOSPLIT, $0-64
	MOVQ   w+0(FP), SI
	MOVQ   supers+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   astride+24(FP), AX
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	LEAQ   (R10)(AX*1), R11
	MOVQ   s+32(FP), R12
	MOVQ   sstride+40(FP), AX
	LEAQ   (R12)(AX*1), R13
	LEAQ   (R13)(AX*1), R14
	LEAQ   (R14)(AX*1), R15
	K4_16SETUP
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	XORQ   BX, BX
	XORQ   DX, DX
	IMUL3Q $2368, CX, DI
	ADDQ   SI, DI

rows16x4q4k_loop:
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	K4_16SUB4(0, 320, Z31, K4_16SCLO)
	K4_16SUB4(1, 320, Z30, K4_16SCHI)
	K4_16SUB4(2, 832, Z31, K4_16SCLO)
	K4_16SUB4(3, 832, Z30, K4_16SCHI)
	K4_16SUB4(4, 1344, Z31, K4_16SCLO)
	K4_16SUB4(5, 1344, Z30, K4_16SCHI)
	K4_16SUB4(6, 1856, Z31, K4_16SCLO)
	K4_16SUB4(7, 1856, Z30, K4_16SCHI)
	K4_16FOLDPREP
	K4_16FOLD((R8)(BX*1), (R12)(DX*1), Z10, Z18)
	K4_16FOLD((R9)(BX*1), (R13)(DX*1), Z11, Z19)
	K4_16FOLD((R10)(BX*1), (R14)(DX*1), Z12, Z20)
	K4_16FOLD((R11)(BX*1), (R15)(DX*1), Z13, Z21)
	ADDQ $2368, SI
	ADDQ $2368, DI
	ADDQ $292, BX
	ADDQ $16, DX
	DECQ CX
	JNZ  rows16x4q4k_loop

	MOVQ    y+48(FP), DI
	MOVQ    ystride+56(FP), AX
	VMOVUPS Z18, (DI)
	ADDQ    AX, DI
	VMOVUPS Z19, (DI)
	ADDQ    AX, DI
	VMOVUPS Z20, (DI)
	ADDQ    AX, DI
	VMOVUPS Z21, (DI)
	VZEROUPPER
	RET

// K4_16SUB8 is sub-block sub for eight activation rows: rows r and r+4
// at R8+r·astride and four strides further, (R8+r·astride)(AX*4), the
// pointers moved on super-block by super-block (rows16x8Q4_0's plan).
#define K4_16SUB8(sub, off, mask, sc) \
	K4_16PF(sub) ; \
	K4_16UNPACK(off, mask) ; \
	sc(sub) ; \
	K4_16ROW(sub, (R8), Z9, Z10) ; \
	K4_16ROW(sub, (R9), Z26, Z11) ; \
	K4_16ROW(sub, (R10), Z9, Z12) ; \
	K4_16ROW(sub, (R11), Z26, Z13) ; \
	K4_16ROW(sub, (R8)(AX*4), Z9, Z14) ; \
	K4_16ROW(sub, (R9)(AX*4), Z26, Z15) ; \
	K4_16ROW(sub, (R10)(AX*4), Z9, Z16) ; \
	K4_16ROW(sub, (R11)(AX*4), Z26, Z17)

// func rows16x8Q4_K(w *byte, supers int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)
// rows16x4Q4_K for eight activation rows, each super-block unpacked once
// for the eight.
TEXT ·rows16x8Q4_K(SB), NOSPLIT, $0-64
	MOVQ   w+0(FP), SI
	MOVQ   supers+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   astride+24(FP), AX
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	LEAQ   (R10)(AX*1), R11
	MOVQ   s+32(FP), R12
	MOVQ   sstride+40(FP), BX
	LEAQ   (R12)(BX*1), R13
	LEAQ   (R13)(BX*1), R14
	LEAQ   (R14)(BX*1), R15
	MOVQ   AX, DX
	K4_16SETUP
	MOVQ   DX, AX
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	IMUL3Q $2368, CX, DI
	ADDQ   SI, DI

rows16x8q4k_loop:
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	K4_16SUB8(0, 320, Z31, K4_16SCLO)
	K4_16SUB8(1, 320, Z30, K4_16SCHI)
	K4_16SUB8(2, 832, Z31, K4_16SCLO)
	K4_16SUB8(3, 832, Z30, K4_16SCHI)
	K4_16SUB8(4, 1344, Z31, K4_16SCLO)
	K4_16SUB8(5, 1344, Z30, K4_16SCHI)
	K4_16SUB8(6, 1856, Z31, K4_16SCLO)
	K4_16SUB8(7, 1856, Z30, K4_16SCHI)
	K4_16FOLDPREP
	K4_16FOLD((R8), (R12), Z10, Z18)
	K4_16FOLD((R9), (R13), Z11, Z19)
	K4_16FOLD((R10), (R14), Z12, Z20)
	K4_16FOLD((R11), (R15), Z13, Z21)
	K4_16FOLD((R8)(AX*4), (R12)(BX*4), Z14, Z22)
	K4_16FOLD((R9)(AX*4), (R13)(BX*4), Z15, Z23)
	K4_16FOLD((R10)(AX*4), (R14)(BX*4), Z16, Z24)
	K4_16FOLD((R11)(AX*4), (R15)(BX*4), Z17, Z25)
	ADDQ $2368, SI
	ADDQ $2368, DI
	ADDQ $292, R8
	ADDQ $292, R9
	ADDQ $292, R10
	ADDQ $292, R11
	ADDQ $16, R12
	ADDQ $16, R13
	ADDQ $16, R14
	ADDQ $16, R15
	DECQ CX
	JNZ  rows16x8q4k_loop

	MOVQ    y+48(FP), DI
	MOVQ    ystride+56(FP), AX
	VMOVUPS Z18, (DI)
	ADDQ    AX, DI
	VMOVUPS Z19, (DI)
	ADDQ    AX, DI
	VMOVUPS Z20, (DI)
	ADDQ    AX, DI
	VMOVUPS Z21, (DI)
	ADDQ    AX, DI
	VMOVUPS Z22, (DI)
	ADDQ    AX, DI
	VMOVUPS Z23, (DI)
	ADDQ    AX, DI
	VMOVUPS Z24, (DI)
	ADDQ    AX, DI
	VMOVUPS Z25, (DI)
	VZEROUPPER
	RET

// K4_16SUB1 is sub-block sub for one activation row.
#define K4_16SUB1(sub, off, mask, sc) \
	K4_16UNPACK(off, mask) ; \
	sc(sub) ; \
	K4_16ROW2(sub, (R8)(BX*1), Z10)

// func rows16x1Q4_K(w *byte, supers int, a *byte, s *byte, y *float32)
// The same for one activation row: a decode step.
TEXT ·rows16x1Q4_K(SB), NOSPLIT, $0-40
	MOVQ   w+0(FP), SI
	MOVQ   supers+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   s+24(FP), R12
	K4_16SETUP
	VPXORD Z18, Z18, Z18
	XORQ   BX, BX
	XORQ   DX, DX

rows16x1q4k_loop:
	VPXORD Z10, Z10, Z10
	K4_16SUB1(0, 320, Z31, K4_16SCLO)
	K4_16SUB1(1, 320, Z30, K4_16SCHI)
	K4_16SUB1(2, 832, Z31, K4_16SCLO)
	K4_16SUB1(3, 832, Z30, K4_16SCHI)
	K4_16SUB1(4, 1344, Z31, K4_16SCLO)
	K4_16SUB1(5, 1344, Z30, K4_16SCHI)
	K4_16SUB1(6, 1856, Z31, K4_16SCLO)
	K4_16SUB1(7, 1856, Z30, K4_16SCHI)
	K4_16FOLDPREP
	K4_16FOLD((R8)(BX*1), (R12)(DX*1), Z10, Z18)
	ADDQ $2368, SI
	ADDQ $292, BX
	ADDQ $16, DX
	DECQ CX
	JNZ  rows16x1q4k_loop

	MOVQ    y+32(FP), DI
	VMOVUPS Z18, (DI)
	VZEROUPPER
	RET
