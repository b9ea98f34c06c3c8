//go:build amd64 && !purego

#include "textflag.h"

// The 16-row kernels: Q4_0 weights repacked sixteen rows at a time
// (rows16_amd64.go) times Q8_0 activations, on AVX-512 VNNI; Q6_K's
// follow at the end.
//
// A packed block holds one block of each of sixteen rows: their sixteen
// f16 scales (32 bytes), then four chunks of 64 bytes, chunk c holding
// bytes 4c…4c+3 of each row's qs in lane order (row i at bytes 4i…4i+3).
// One chunk, masked with 0x0F, is elements 4c…4c+3 of all sixteen rows;
// shifted right by 4, elements 16+4c…19+4c. VPDPBUSD with the activation's
// four matching bytes broadcast to every lane then adds one row's four
// products into each lane: eight VPDPBUSD make the block's integer dot
// product Σq·a for sixteen rows at once, one row per lane, and a sum never
// has to cross lanes. The −8 of each quant comes in as the sum's starting
// value, −8·Σa, prepared with the activations' scale d_a per block
// (prepareSums). Each lane then adds (d_w·d_a)·Σ with one FMA, block after
// block, and the sixteen lanes are the sixteen dot products.
//
// Registers: SI the packed blocks, CX blocks left, BX the offset of the
// block in each activation row (34 per block), DX in each row of sums (8),
// R8–R11 the activation rows, R12–R15 their sums, Z0–Z7 the unpacked
// quants, Z20 d_w, Z24–Z27 the four rows' sums, Z31 0x0F bytes.

// UNPACK16 unpacks the packed block at SI into Z0–Z7 and Z20.
#define UNPACK16 \
	VCVTPH2PS (SI), Z20 ; \
	VMOVDQU64 32(SI), Z0 ; \
	VMOVDQU64 96(SI), Z1 ; \
	VMOVDQU64 160(SI), Z2 ; \
	VMOVDQU64 224(SI), Z3 ; \
	VPSRLW    $4, Z0, Z4 ; \
	VPSRLW    $4, Z1, Z5 ; \
	VPSRLW    $4, Z2, Z6 ; \
	VPSRLW    $4, Z3, Z7 ; \
	VPANDD    Z31, Z0, Z0 ; \
	VPANDD    Z31, Z1, Z1 ; \
	VPANDD    Z31, Z2, Z2 ; \
	VPANDD    Z31, Z3, Z3 ; \
	VPANDD    Z31, Z4, Z4 ; \
	VPANDD    Z31, Z5, Z5 ; \
	VPANDD    Z31, Z6, Z6 ; \
	VPANDD    Z31, Z7, Z7

// ROW16 adds the block's products with the activation row at a (sums at
// s) to acc, using isum and prod as scratch.
#define ROW16(a, s, isum, prod, acc) \
	VPBROADCASTD      (s)(DX*1), isum /* −8·Σa */ ; \
	VPDPBUSD.BCST     2(a)(BX*1), Z0, isum ; \
	VPDPBUSD.BCST     6(a)(BX*1), Z1, isum ; \
	VPDPBUSD.BCST     10(a)(BX*1), Z2, isum ; \
	VPDPBUSD.BCST     14(a)(BX*1), Z3, isum ; \
	VPDPBUSD.BCST     18(a)(BX*1), Z4, isum ; \
	VPDPBUSD.BCST     22(a)(BX*1), Z5, isum ; \
	VPDPBUSD.BCST     26(a)(BX*1), Z6, isum ; \
	VPDPBUSD.BCST     30(a)(BX*1), Z7, isum ; \
	VCVTDQ2PS         isum, isum ; \
	VMULPS.BCST       4(s)(DX*1), Z20, prod /* d_w·d_a */ ; \
	VFMADD231PS       prod, isum, acc

// func rows16x4Q4_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)
// blocks ≥ 1 packed blocks at w times four activation rows (a, a+astride,
// …) with their sums (s, s+sstride, …); row r's sixteen dot products go to
// y + r·ystride bytes.
TEXT ·rows16x4Q4_0(SB), NOSPLIT, $0-64
	MOVQ         w+0(FP), SI
	MOVQ         blocks+8(FP), CX
	MOVQ         a+16(FP), R8
	MOVQ         astride+24(FP), AX
	LEAQ         (R8)(AX*1), R9
	LEAQ         (R9)(AX*1), R10
	LEAQ         (R10)(AX*1), R11
	MOVQ         s+32(FP), R12
	MOVQ         sstride+40(FP), AX
	LEAQ         (R12)(AX*1), R13
	LEAQ         (R13)(AX*1), R14
	LEAQ         (R14)(AX*1), R15
	MOVL         $0x0F, AX
	VPBROADCASTB AX, Z31
	VPXORD       Z24, Z24, Z24
	VPXORD       Z25, Z25, Z25
	VPXORD       Z26, Z26, Z26
	VPXORD       Z27, Z27, Z27
	XORQ         BX, BX
	XORQ         DX, DX
	IMUL3Q       $288, CX, DI
	ADDQ         SI, DI

rows16x4_loop:
	PREFETCHT1 (DI)
	PREFETCHT1 64(DI)
	PREFETCHT1 128(DI)
	PREFETCHT1 192(DI)
	PREFETCHT1 256(DI)
	ADDQ       $288, DI
	UNPACK16
	ROW16(R8, R12, Z8, Z9, Z24)
	ROW16(R9, R13, Z10, Z11, Z25)
	ROW16(R10, R14, Z12, Z13, Z26)
	ROW16(R11, R15, Z14, Z15, Z27)
	ADDQ $288, SI
	ADDQ $34, BX
	ADDQ $8, DX
	DECQ CX
	JNZ  rows16x4_loop

	MOVQ    y+48(FP), DI
	MOVQ    ystride+56(FP), AX
	VMOVUPS Z24, (DI)
	ADDQ    AX, DI
	VMOVUPS Z25, (DI)
	ADDQ    AX, DI
	VMOVUPS Z26, (DI)
	ADDQ    AX, DI
	VMOVUPS Z27, (DI)
	VZEROUPPER
	RET

// ROW16AT is ROW16 for the activation row at address a and its sums at
// address s, the block's offsets already in them.
#define ROW16AT(a, s, isum, acc) \
	VPBROADCASTD      s, isum /* −8·Σa */ ; \
	VPDPBUSD.BCST     2 a, Z0, isum ; \
	VPDPBUSD.BCST     6 a, Z1, isum ; \
	VPDPBUSD.BCST     10 a, Z2, isum ; \
	VPDPBUSD.BCST     14 a, Z3, isum ; \
	VPDPBUSD.BCST     18 a, Z4, isum ; \
	VPDPBUSD.BCST     22 a, Z5, isum ; \
	VPDPBUSD.BCST     26 a, Z6, isum ; \
	VPDPBUSD.BCST     30 a, Z7, isum ; \
	VCVTDQ2PS         isum, isum ; \
	VMULPS.BCST       4 s, Z20, Z25 /* d_w·d_a */ ; \
	VFMADD231PS       Z25, isum, acc

// func rows16x8Q4_0(w *byte, blocks int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)
// rows16x4Q4_0 for eight activation rows. Each block is unpacked once for
// the eight, and its prefetches of the next group spread over twice the
// time, so that the stream from memory keeps going while eight rows (a
// batch of decode steps) are computed, rather than two passes of four
// taking turns with it. Rows r and r+4 are at R8+r·astride and four
// strides further, (R8+r·astride)(AX*4); the sums likewise with BX; the
// pointers themselves move on block by block.
TEXT ·rows16x8Q4_0(SB), NOSPLIT, $0-64
	MOVQ         w+0(FP), SI
	MOVQ         blocks+8(FP), CX
	MOVQ         a+16(FP), R8
	MOVQ         astride+24(FP), AX
	LEAQ         (R8)(AX*1), R9
	LEAQ         (R9)(AX*1), R10
	LEAQ         (R10)(AX*1), R11
	MOVQ         s+32(FP), R12
	MOVQ         sstride+40(FP), BX
	LEAQ         (R12)(BX*1), R13
	LEAQ         (R13)(BX*1), R14
	LEAQ         (R14)(BX*1), R15
	MOVL         $0x0F, DX
	VPBROADCASTB DX, Z31
	VPXORD       Z16, Z16, Z16
	VPXORD       Z17, Z17, Z17
	VPXORD       Z18, Z18, Z18
	VPXORD       Z19, Z19, Z19
	VPXORD       Z21, Z21, Z21
	VPXORD       Z22, Z22, Z22
	VPXORD       Z23, Z23, Z23
	VPXORD       Z24, Z24, Z24
	IMUL3Q       $288, CX, DI
	ADDQ         SI, DI

rows16x8_loop:
	PREFETCHT1 (DI)
	PREFETCHT1 64(DI)
	PREFETCHT1 128(DI)
	PREFETCHT1 192(DI)
	PREFETCHT1 256(DI)
	ADDQ       $288, DI
	UNPACK16
	ROW16AT((R8), (R12), Z8, Z16)
	ROW16AT((R9), (R13), Z9, Z17)
	ROW16AT((R10), (R14), Z10, Z18)
	ROW16AT((R11), (R15), Z11, Z19)
	ROW16AT((R8)(AX*4), (R12)(BX*4), Z12, Z21)
	ROW16AT((R9)(AX*4), (R13)(BX*4), Z13, Z22)
	ROW16AT((R10)(AX*4), (R14)(BX*4), Z14, Z23)
	ROW16AT((R11)(AX*4), (R15)(BX*4), Z15, Z24)
	ADDQ $288, SI
	ADDQ $34, R8
	ADDQ $34, R9
	ADDQ $34, R10
	ADDQ $34, R11
	ADDQ $8, R12
	ADDQ $8, R13
	ADDQ $8, R14
	ADDQ $8, R15
	DECQ CX
	JNZ  rows16x8_loop

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

// func rows16x1Q4_0(w *byte, blocks int, a *byte, s *byte, y *float32)
// The same for one activation row: a decode step.
TEXT ·rows16x1Q4_0(SB), NOSPLIT, $0-40
	MOVQ         w+0(FP), SI
	MOVQ         blocks+8(FP), CX
	MOVQ         a+16(FP), R8
	MOVQ         s+24(FP), R12
	MOVL         $0x0F, AX
	VPBROADCASTB AX, Z31
	VPXORD       Z24, Z24, Z24
	XORQ         BX, BX
	XORQ         DX, DX

rows16x1_loop:
	UNPACK16
	ROW16(R8, R12, Z8, Z9, Z24)
	ADDQ $288, SI
	ADDQ $34, BX
	ADDQ $8, DX
	DECQ CX
	JNZ  rows16x1_loop

	MOVQ    y+32(FP), DI
	VMOVUPS Z24, (DI)
	VZEROUPPER
	RET

// The Q6_K kernels: Q6_K weights repacked sixteen rows at a time
// (pack16Q6_K) times Q8_K activations.
//
// A packed super-block holds one super-block of each of sixteen rows: their
// f16 scales d (32 bytes), their int8 sub-block scales, sub-block s of all
// rows at 32+16s, then for each sub-block s three chunks at 288+192s: P0
// and P1 carry four low nibbles of each row's quants in their low nibbles
// and four more in their high ones, Q their top two bits. With H = Q & 0x33
// and H' = (Q >> 2) & 0x33, VPTERNLOGD $0xE4 ("0x0F ? x : y") joins them:
//
//	v0 = 0x0F ? P0      : H << 4     quants 16s+0…3 of each row
//	v1 = 0x0F ? P1      : H' << 4    16s+4…7
//	v2 = 0x0F ? P0 >> 4 : H          16s+8…11
//	v3 = 0x0F ? P1 >> 4 : H'         16s+12…15
//
// (the word shifts spill bits between bytes only into bits the other
// operand provides, and the masks by 0x33 keep bits 6–7 clear). Four
// VPDPBUSD with the sub-block's activations broadcast, starting from
// −32·Σa of the sub-block (prepareSums), give each lane its row's
// Σ(q−32)·a exactly; VPMULLD by the row's scale and VPADDD sum the sixteen
// sub-blocks (|Σ| < 16·32·128·128·16 < 2³¹), and one conversion, one
// multiply by d·d_a and one FMA fold the super-block into the lane's sum.
//
// Registers: SI the packed super-blocks, CX super-blocks left, BX the
// offset of the super-block in each activation row (292 each), DX in each
// row of sums (64), R8–R11 the activation rows, R12–R15 their sums; Z0–Z3
// the quants v0–v3, Z4–Z6 H, H', Q, Z7 the sub-block's scales as int32;
// Z8–Z11 the rows' sub-block sums, Z12–Z15 their super-block sums, Z16–Z19
// their dot products; Z20 d, Z21 scratch, Z30 0x33 bytes, Z31 0x0F bytes.

#define Q6_16SETUP \
	MOVL         $0x0F, AX ; \
	VPBROADCASTB AX, Z31 ; \
	MOVL         $0x33, AX ; \
	VPBROADCASTB AX, Z30 ; \
	XORQ         BX, BX ; \
	XORQ         DX, DX

// Q6_16UNPACK unpacks sub-block sub of the packed super-block at SI into
// Z0–Z3 and its scales into Z7.
#define Q6_16UNPACK(sub) \
	VMOVDQU64  288+192*sub+128(SI), Z6 /* Q */ ; \
	VPSRLW     $2, Z6, Z5 ; \
	VPANDD     Z30, Z6, Z4 /* H */ ; \
	VPANDD     Z30, Z5, Z5 /* H' */ ; \
	VMOVDQU64  288+192*sub(SI), Z0 /* P0 */ ; \
	VMOVDQU64  288+192*sub+64(SI), Z1 /* P1 */ ; \
	VPSRLW     $4, Z0, Z2 ; \
	VPSRLW     $4, Z1, Z3 ; \
	VPTERNLOGD $0xE4, Z31, Z4, Z2 /* v2 */ ; \
	VPTERNLOGD $0xE4, Z31, Z5, Z3 /* v3 */ ; \
	VPSLLW     $4, Z4, Z4 ; \
	VPSLLW     $4, Z5, Z5 ; \
	VPTERNLOGD $0xE4, Z31, Z4, Z0 /* v0 */ ; \
	VPTERNLOGD $0xE4, Z31, Z5, Z1 /* v1 */ ; \
	VPMOVSXBD  32+16*sub(SI), Z7

// Q6_16ROW adds sub-block sub's sc·Σ(q−32)·a, with the activation row at a
// (sums at s), to iacc, using isum as scratch.
#define Q6_16ROW(sub, a, s, isum, iacc) \
	VPBROADCASTD  4*sub(s)(DX*1), isum /* −32·Σa */ ; \
	VPDPBUSD.BCST 4+16*sub(a)(BX*1), Z0, isum ; \
	VPDPBUSD.BCST 8+16*sub(a)(BX*1), Z1, isum ; \
	VPDPBUSD.BCST 12+16*sub(a)(BX*1), Z2, isum ; \
	VPDPBUSD.BCST 16+16*sub(a)(BX*1), Z3, isum ; \
	VPMULLD       Z7, isum, isum ; \
	VPADDD        isum, iacc, iacc

// Q6_16FOLD adds the super-block's sum iacc, times d·d_a (d_a at a), to acc.
#define Q6_16FOLD(a, iacc, acc) \
	VCVTDQ2PS   iacc, iacc ; \
	VMULPS.BCST (a)(BX*1), Z20, Z21 ; \
	VFMADD231PS Z21, iacc, acc

// Q6_16SUB4 is sub-block sub for four activation rows, prefetching the
// same chunks of the next group.
#define Q6_16SUB4(sub) \
	PREFETCHT1 288+192*sub(DI) ; \
	PREFETCHT1 288+192*sub+64(DI) ; \
	PREFETCHT1 288+192*sub+128(DI) ; \
	Q6_16UNPACK(sub) ; \
	Q6_16ROW(sub, R8, R12, Z8, Z12) ; \
	Q6_16ROW(sub, R9, R13, Z9, Z13) ; \
	Q6_16ROW(sub, R10, R14, Z10, Z14) ; \
	Q6_16ROW(sub, R11, R15, Z11, Z15)

// func rows16x4Q6_K(w *byte, supers int, a *byte, astride int, s *byte, sstride int, y *float32, ystride int)
// supers ≥ 1 packed super-blocks at w times four activation rows (a,
// a+astride, …) with their sums (s, s+sstride, …); row r's sixteen dot
// products go to y + r·ystride bytes.
TEXT ·rows16x4Q6_K(SB), NOSPLIT, $0-64
	MOVQ    w+0(FP), SI
	MOVQ    supers+8(FP), CX
	MOVQ    a+16(FP), R8
	MOVQ    astride+24(FP), AX
	LEAQ    (R8)(AX*1), R9
	LEAQ    (R9)(AX*1), R10
	LEAQ    (R10)(AX*1), R11
	MOVQ    s+32(FP), R12
	MOVQ    sstride+40(FP), AX
	LEAQ    (R12)(AX*1), R13
	LEAQ    (R13)(AX*1), R14
	LEAQ    (R14)(AX*1), R15
	Q6_16SETUP
	VPXORD  Z16, Z16, Z16
	VPXORD  Z17, Z17, Z17
	VPXORD  Z18, Z18, Z18
	VPXORD  Z19, Z19, Z19
	IMUL3Q  $3360, CX, DI
	ADDQ    SI, DI

rows16x4q6_loop:
	PREFETCHT1 (DI)
	PREFETCHT1 64(DI)
	PREFETCHT1 128(DI)
	PREFETCHT1 192(DI)
	PREFETCHT1 256(DI)
	VPXORD     Z12, Z12, Z12
	VPXORD     Z13, Z13, Z13
	VPXORD     Z14, Z14, Z14
	VPXORD     Z15, Z15, Z15
	Q6_16SUB4(0)
	Q6_16SUB4(1)
	Q6_16SUB4(2)
	Q6_16SUB4(3)
	Q6_16SUB4(4)
	Q6_16SUB4(5)
	Q6_16SUB4(6)
	Q6_16SUB4(7)
	Q6_16SUB4(8)
	Q6_16SUB4(9)
	Q6_16SUB4(10)
	Q6_16SUB4(11)
	Q6_16SUB4(12)
	Q6_16SUB4(13)
	Q6_16SUB4(14)
	Q6_16SUB4(15)
	VCVTPH2PS (SI), Z20
	Q6_16FOLD(R8, Z12, Z16)
	Q6_16FOLD(R9, Z13, Z17)
	Q6_16FOLD(R10, Z14, Z18)
	Q6_16FOLD(R11, Z15, Z19)
	ADDQ $3360, SI
	ADDQ $3360, DI
	ADDQ $292, BX
	ADDQ $64, DX
	DECQ CX
	JNZ  rows16x4q6_loop

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

// Q6_16SUB1 is sub-block sub for one activation row.
#define Q6_16SUB1(sub) \
	Q6_16UNPACK(sub) ; \
	Q6_16ROW(sub, R8, R12, Z8, Z12)

// func rows16x1Q6_K(w *byte, supers int, a *byte, s *byte, y *float32)
// The same for one activation row: a decode step.
TEXT ·rows16x1Q6_K(SB), NOSPLIT, $0-40
	MOVQ   w+0(FP), SI
	MOVQ   supers+8(FP), CX
	MOVQ   a+16(FP), R8
	MOVQ   s+24(FP), R12
	Q6_16SETUP
	VPXORD Z16, Z16, Z16

rows16x1q6_loop:
	VPXORD    Z12, Z12, Z12
	Q6_16SUB1(0)
	Q6_16SUB1(1)
	Q6_16SUB1(2)
	Q6_16SUB1(3)
	Q6_16SUB1(4)
	Q6_16SUB1(5)
	Q6_16SUB1(6)
	Q6_16SUB1(7)
	Q6_16SUB1(8)
	Q6_16SUB1(9)
	Q6_16SUB1(10)
	Q6_16SUB1(11)
	Q6_16SUB1(12)
	Q6_16SUB1(13)
	Q6_16SUB1(14)
	Q6_16SUB1(15)
	VCVTPH2PS (SI), Z20
	Q6_16FOLD(R8, Z12, Z16)
	ADDQ $3360, SI
	ADDQ $292, BX
	ADDQ $64, DX
	DECQ CX
	JNZ  rows16x1q6_loop

	MOVQ    y+32(FP), DI
	VMOVUPS Z16, (DI)
	VZEROUPPER
	RET
