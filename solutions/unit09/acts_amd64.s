//go:build amd64 && !purego

#include "textflag.h"

// func actsQ8_0AVX512(dst *byte, x *float32, blocks int)
// Quantizes blocks ≥ 1 blocks of 32 activations at x into Q8_0 blocks at
// dst, exactly as activationsQ8_0 does (matrix.go): amax = max|x| over the
// block, ignoring NaNs; d = amax/127 rounded to f16, ties to even; each
// quant the int8 of x·(127/amax) rounded to nearest, ties to even. Every
// step is one IEEE operation on float32s, so the bytes are the Go code's:
// VMAXPS keeps its second operand when either is a NaN, which skips NaNs
// as the Go comparison does, and VCVTPS2DQ turns a NaN or an infinity into
// 0x80000000, whose low byte 0 is also what Go's int8(int(NaN)) gives.
// For amax = 0 the inverse is +Inf where Go's is 0; every x is then ±0 or
// a NaN, and both give the quant 0.
TEXT ·actsQ8_0AVX512(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         blocks+16(FP), CX
	MOVL         $0x7FFFFFFF, AX
	VPBROADCASTD AX, Z31 /* |x| mask */
	MOVL         $0x42FE0000, AX /* 127.0 */
	VMOVD        AX, X8

acts_loop:
	VMOVUPS       (SI), Z0
	VMOVUPS       64(SI), Z1
	VPANDD        Z31, Z0, Z2
	VPANDD        Z31, Z1, Z3
	VPXORD        Z4, Z4, Z4
	VMAXPS        Z4, Z2, Z4 /* max(|x|, 0), 0 where x is a NaN */
	VMAXPS        Z4, Z3, Z4
	VEXTRACTF64X4 $1, Z4, Y5
	VMAXPS        Y5, Y4, Y4
	VEXTRACTF128  $1, Y4, X5
	VMAXPS        X5, X4, X4
	VPERMILPS     $0x4E, X4, X5
	VMAXPS        X5, X4, X4
	VPERMILPS     $0xB1, X4, X5
	VMAXPS        X5, X4, X4 /* amax in every lane */
	VDIVSS        X8, X4, X6 /* d = amax/127 */
	VCVTPS2PH     $0, X6, X6
	VMOVD         X6, AX
	MOVW          AX, (DI)
	VDIVSS        X4, X8, X7 /* 127/amax */
	VBROADCASTSS  X7, Z7
	VMULPS        Z7, Z0, Z0
	VMULPS        Z7, Z1, Z1
	VCVTPS2DQ     Z0, Z0
	VCVTPS2DQ     Z1, Z1
	VPMOVDB       Z0, X0
	VPMOVDB       Z1, X1
	VMOVDQU       X0, 2(DI)
	VMOVDQU       X1, 18(DI)
	ADDQ          $128, SI
	ADDQ          $34, DI
	DECQ          CX
	JNZ           acts_loop
	VZEROUPPER
	RET

// func sumsQ8_0AVX512(dst *byte, a *byte, blocks int, k int)
// Writes, for each of blocks ≥ 1 Q8_0 blocks at a, the packed kernels'
// start k·Σq (int32; k = −8 for Q4_0 weights, −128 for Q8_0) and d_a
// (float32) to dst, 8 bytes a block, as prepareSums does
// (rows16_amd64.go). Σq of the 32 signed quants is Σ(q XOR 0x80) −
// 32·128, and VPSADBW against zero adds unsigned bytes eight at a time.
TEXT ·sumsQ8_0AVX512(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         blocks+16(FP), CX
	MOVQ         k+24(FP), DX
	MOVL         $0x80808080, AX
	VPBROADCASTD AX, Y15
	VPXOR        Y14, Y14, Y14

sums_loop:
	VPXOR        2(SI), Y15, Y0
	VPSADBW      Y14, Y0, Y0 /* four sums of eight */
	VEXTRACTI128 $1, Y0, X1
	VPADDQ       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDQ       X1, X0, X0
	VMOVD        X0, AX
	SUBL         $4096, AX /* Σq */
	IMULL        DX, AX
	MOVL         AX, (DI)
	VPBROADCASTW (SI), X2
	VCVTPH2PS    X2, X2
	VMOVSS       X2, 4(DI)
	ADDQ         $34, SI
	ADDQ         $8, DI
	DECQ         CX
	JNZ          sums_loop
	VZEROUPPER
	RET
