//go:build amd64 && !purego

#include "textflag.h"

// The 16-row kernels: Q4_0 weights repacked sixteen rows at a time
// (rows16_amd64.go) times Q8_0 activations, on AVX-512 VNNI.
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
	PREFETCHT0 (DI)
	PREFETCHT0 64(DI)
	PREFETCHT0 128(DI)
	PREFETCHT0 192(DI)
	PREFETCHT0 256(DI)
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
