//go:build amd64 && !purego

#include "textflag.h"

// Vector kernels for SiLU, SwiGLU, softmax and RMSNorm, in AVX2 (8 float32
// lanes, Y registers) and AVX-512 (16 lanes, Z registers). Each processes
// whole vectors only: the Go wrappers in kernels_amd64.go pass a length that
// is a multiple of the width (and not zero) and finish the tail in Go.
//
// The exponential follows expf in exp.go step for step: n = round(x·log2e),
// r = x − n·ln2hi − n·ln2lo, e^r = 1 + r + r²·P(r), 2^n added to the
// exponent bits. The AVX2 version returns +Inf from 88.38 up (not 88.72),
// so that n stays ≤ 127 and the exponent addition cannot overflow into the
// sign, and 0 below −87.34, as expf does. The AVX-512 version lets
// VSCALEFPS handle both ends.

// Constants: one float32 each, broadcast into registers, and (suffix x8)
// eight copies for the AVX2 code to use as memory operands.
DATA exp512Hi<>+0(SB)/4, $0x42b20000
GLOBL exp512Hi<>(SB), RODATA|NOPTR, $4
DATA exp512Lo<>+0(SB)/4, $0xc2d00000
GLOBL exp512Lo<>(SB), RODATA|NOPTR, $4
DATA expHi<>+0(SB)/4, $0x42b0c0a5
GLOBL expHi<>(SB), RODATA|NOPTR, $4
DATA expLo<>+0(SB)/4, $0xc2aeac4f
GLOBL expLo<>(SB), RODATA|NOPTR, $4
DATA expLog2e<>+0(SB)/4, $0x3fb8aa3b
GLOBL expLog2e<>(SB), RODATA|NOPTR, $4
DATA expLn2Hi<>+0(SB)/4, $0x3f318000
GLOBL expLn2Hi<>(SB), RODATA|NOPTR, $4
DATA expLn2Lo<>+0(SB)/4, $0xb95e8083
GLOBL expLn2Lo<>(SB), RODATA|NOPTR, $4
DATA expP0<>+0(SB)/4, $0x39506967
GLOBL expP0<>(SB), RODATA|NOPTR, $4
DATA expP1<>+0(SB)/4, $0x3ab743ce
GLOBL expP1<>(SB), RODATA|NOPTR, $4
DATA expP2<>+0(SB)/4, $0x3c088908
GLOBL expP2<>(SB), RODATA|NOPTR, $4
DATA expP3<>+0(SB)/4, $0x3d2aa9c1
GLOBL expP3<>(SB), RODATA|NOPTR, $4
DATA expP4<>+0(SB)/4, $0x3e2aaaaa
GLOBL expP4<>(SB), RODATA|NOPTR, $4
DATA expP5<>+0(SB)/4, $0x3f000000
GLOBL expP5<>(SB), RODATA|NOPTR, $4
DATA one<>+0(SB)/4, $0x3f800000
GLOBL one<>(SB), RODATA|NOPTR, $4
DATA posInf<>+0(SB)/4, $0x7f800000
GLOBL posInf<>(SB), RODATA|NOPTR, $4
DATA negInf<>+0(SB)/4, $0xff800000
GLOBL negInf<>(SB), RODATA|NOPTR, $4
DATA expP0x8<>+0(SB)/4, $0x39506967
DATA expP0x8<>+4(SB)/4, $0x39506967
DATA expP0x8<>+8(SB)/4, $0x39506967
DATA expP0x8<>+12(SB)/4, $0x39506967
DATA expP0x8<>+16(SB)/4, $0x39506967
DATA expP0x8<>+20(SB)/4, $0x39506967
DATA expP0x8<>+24(SB)/4, $0x39506967
DATA expP0x8<>+28(SB)/4, $0x39506967
GLOBL expP0x8<>(SB), RODATA|NOPTR, $32
DATA expP1x8<>+0(SB)/4, $0x3ab743ce
DATA expP1x8<>+4(SB)/4, $0x3ab743ce
DATA expP1x8<>+8(SB)/4, $0x3ab743ce
DATA expP1x8<>+12(SB)/4, $0x3ab743ce
DATA expP1x8<>+16(SB)/4, $0x3ab743ce
DATA expP1x8<>+20(SB)/4, $0x3ab743ce
DATA expP1x8<>+24(SB)/4, $0x3ab743ce
DATA expP1x8<>+28(SB)/4, $0x3ab743ce
GLOBL expP1x8<>(SB), RODATA|NOPTR, $32
DATA expP2x8<>+0(SB)/4, $0x3c088908
DATA expP2x8<>+4(SB)/4, $0x3c088908
DATA expP2x8<>+8(SB)/4, $0x3c088908
DATA expP2x8<>+12(SB)/4, $0x3c088908
DATA expP2x8<>+16(SB)/4, $0x3c088908
DATA expP2x8<>+20(SB)/4, $0x3c088908
DATA expP2x8<>+24(SB)/4, $0x3c088908
DATA expP2x8<>+28(SB)/4, $0x3c088908
GLOBL expP2x8<>(SB), RODATA|NOPTR, $32
DATA expP3x8<>+0(SB)/4, $0x3d2aa9c1
DATA expP3x8<>+4(SB)/4, $0x3d2aa9c1
DATA expP3x8<>+8(SB)/4, $0x3d2aa9c1
DATA expP3x8<>+12(SB)/4, $0x3d2aa9c1
DATA expP3x8<>+16(SB)/4, $0x3d2aa9c1
DATA expP3x8<>+20(SB)/4, $0x3d2aa9c1
DATA expP3x8<>+24(SB)/4, $0x3d2aa9c1
DATA expP3x8<>+28(SB)/4, $0x3d2aa9c1
GLOBL expP3x8<>(SB), RODATA|NOPTR, $32
DATA expP4x8<>+0(SB)/4, $0x3e2aaaaa
DATA expP4x8<>+4(SB)/4, $0x3e2aaaaa
DATA expP4x8<>+8(SB)/4, $0x3e2aaaaa
DATA expP4x8<>+12(SB)/4, $0x3e2aaaaa
DATA expP4x8<>+16(SB)/4, $0x3e2aaaaa
DATA expP4x8<>+20(SB)/4, $0x3e2aaaaa
DATA expP4x8<>+24(SB)/4, $0x3e2aaaaa
DATA expP4x8<>+28(SB)/4, $0x3e2aaaaa
GLOBL expP4x8<>(SB), RODATA|NOPTR, $32
DATA expP5x8<>+0(SB)/4, $0x3f000000
DATA expP5x8<>+4(SB)/4, $0x3f000000
DATA expP5x8<>+8(SB)/4, $0x3f000000
DATA expP5x8<>+12(SB)/4, $0x3f000000
DATA expP5x8<>+16(SB)/4, $0x3f000000
DATA expP5x8<>+20(SB)/4, $0x3f000000
DATA expP5x8<>+24(SB)/4, $0x3f000000
DATA expP5x8<>+28(SB)/4, $0x3f000000
GLOBL expP5x8<>(SB), RODATA|NOPTR, $32
DATA onex8<>+0(SB)/4, $0x3f800000
DATA onex8<>+4(SB)/4, $0x3f800000
DATA onex8<>+8(SB)/4, $0x3f800000
DATA onex8<>+12(SB)/4, $0x3f800000
DATA onex8<>+16(SB)/4, $0x3f800000
DATA onex8<>+20(SB)/4, $0x3f800000
DATA onex8<>+24(SB)/4, $0x3f800000
DATA onex8<>+28(SB)/4, $0x3f800000
GLOBL onex8<>(SB), RODATA|NOPTR, $32
DATA posInfx8<>+0(SB)/4, $0x7f800000
DATA posInfx8<>+4(SB)/4, $0x7f800000
DATA posInfx8<>+8(SB)/4, $0x7f800000
DATA posInfx8<>+12(SB)/4, $0x7f800000
DATA posInfx8<>+16(SB)/4, $0x7f800000
DATA posInfx8<>+20(SB)/4, $0x7f800000
DATA posInfx8<>+24(SB)/4, $0x7f800000
DATA posInfx8<>+28(SB)/4, $0x7f800000
GLOBL posInfx8<>(SB), RODATA|NOPTR, $32

// EXP_AVX2 sets x = e^x, lane by lane. Constants: Y15 hi, Y14 lo, Y13 log2e,
// Y12 ln2hi, Y11 ln2lo; the polynomial comes from memory. Clobbers n, p, t,
// lo and hi.
#define EXP_AVX2(x, n, p, t, lo, hi) \
	VCMPPS       $0x1e, Y15, x, hi; \
	VMINPS       x, Y15, x; \
	VCMPPS       $1, Y14, x, lo; \
	VMAXPS       x, Y14, x; \
	VMULPS       Y13, x, n; \
	VROUNDPS     $0, n, n; \
	VFNMADD231PS Y12, n, x; \
	VFNMADD231PS Y11, n, x; \
	VMOVUPS      expP0x8<>(SB), p; \
	VFMADD213PS  expP1x8<>(SB), x, p; \
	VFMADD213PS  expP2x8<>(SB), x, p; \
	VFMADD213PS  expP3x8<>(SB), x, p; \
	VFMADD213PS  expP4x8<>(SB), x, p; \
	VFMADD213PS  expP5x8<>(SB), x, p; \
	VMULPS       x, x, t; \
	VFMADD213PS  x, t, p; \
	VADDPS       onex8<>(SB), p, p; \
	VCVTPS2DQ    n, n; \
	VPSLLD       $23, n, n; \
	VPADDD       n, p, x; \
	VANDNPS      x, lo, x; \
	VBLENDVPS    hi, posInfx8<>(SB), x, x

#define EXP_CONSTS_AVX2 \
	VBROADCASTSS expHi<>(SB), Y15; \
	VBROADCASTSS expLo<>(SB), Y14; \
	VBROADCASTSS expLog2e<>(SB), Y13; \
	VBROADCASTSS expLn2Hi<>(SB), Y12; \
	VBROADCASTSS expLn2Lo<>(SB), Y11

// EXP_AVX512 is the same exponential on Z registers, where VSCALEFPS does
// the last step (p·2^n) in one instruction, with overflow to +Inf and
// underflow to 0 built in; the input only needs clamping to [−104, 89] so
// that −Inf and +Inf do not turn r into NaN. Constants: Z31 89, Z30 −104,
// Z29 log2e, Z28 ln2hi, Z27 ln2lo, Z21–Z26 the polynomial, Z20 one.
// Clobbers n, p and t.
#define EXP_AVX512(x, n, p, t) 	VMINPS       x, Z31, x; 	VMAXPS       x, Z30, x; 	VMULPS       Z29, x, n; 	VRNDSCALEPS  $0, n, n; 	VFNMADD231PS Z28, n, x; 	VFNMADD231PS Z27, n, x; 	VMOVAPS      Z21, p; 	VFMADD213PS  Z22, x, p; 	VFMADD213PS  Z23, x, p; 	VFMADD213PS  Z24, x, p; 	VFMADD213PS  Z25, x, p; 	VFMADD213PS  Z26, x, p; 	VMULPS       x, x, t; 	VFMADD213PS  x, t, p; 	VADDPS       Z20, p, p; 	VSCALEFPS    n, p, x

#define EXP_CONSTS_AVX512 \
	VBROADCASTSS exp512Hi<>(SB), Z31; \
	VBROADCASTSS exp512Lo<>(SB), Z30; \
	VBROADCASTSS expLog2e<>(SB), Z29; \
	VBROADCASTSS expLn2Hi<>(SB), Z28; \
	VBROADCASTSS expLn2Lo<>(SB), Z27; \
	VBROADCASTSS expP0<>(SB), Z21; \
	VBROADCASTSS expP1<>(SB), Z22; \
	VBROADCASTSS expP2<>(SB), Z23; \
	VBROADCASTSS expP3<>(SB), Z24; \
	VBROADCASTSS expP4<>(SB), Z25; \
	VBROADCASTSS expP5<>(SB), Z26; \
	VBROADCASTSS one<>(SB), Z20

// func maxAVX2(x []float32) float32
TEXT ·maxAVX2(SB), NOSPLIT, $0-28
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS negInf<>(SB), Y0
	VMOVAPS      Y0, Y1
	TESTQ        $8, CX
	JZ           max2pairs
	VMAXPS       (SI), Y0, Y0
	ADDQ         $32, SI
	SUBQ         $8, CX
	JZ           max2done
max2pairs:
	VMAXPS       (SI), Y0, Y0
	VMAXPS       32(SI), Y1, Y1
	ADDQ         $64, SI
	SUBQ         $16, CX
	JNZ          max2pairs
max2done:
	VMAXPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0x4e, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VMAXPS       X1, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func expShiftSumAVX2(dst, x, nextX, nextDst []float32, scale, shift float32) float64
TEXT ·expShiftSumAVX2(SB), NOSPLIT, $0-112
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	MOVQ         nextX_base+48(FP), BX
	MOVQ         nextDst_base+72(FP), DX
	VBROADCASTSS scale+96(FP), Y9
	VBROADCASTSS shift+100(FP), Y8
	EXP_CONSTS_AVX2
	VXORPS       Y10, Y10, Y10
expsum2loop:
	PREFETCHT1   (BX)
	PREFETCHT1   (DX)
	VMOVUPS      (SI), Y0
	VFMSUB213PS  Y8, Y9, Y0
	EXP_AVX2(Y0, Y1, Y2, Y3, Y4, Y5)
	VMOVUPS      Y0, (DI)
	VADDPS       Y0, Y10, Y10
	ADDQ         $32, SI
	ADDQ         $32, DI
	ADDQ         $32, BX
	ADDQ         $32, DX
	SUBQ         $8, CX
	JNZ          expsum2loop
	VCVTPS2PD    X10, Y6
	VEXTRACTF128 $1, Y10, X7
	VCVTPS2PD    X7, Y7
	VADDPD       Y7, Y6, Y6
	VEXTRACTF128 $1, Y6, X7
	VADDPD       X7, X6, X6
	VPERMILPD    $1, X6, X7
	VADDSD       X7, X6, X6
	VZEROUPPER
	MOVSD        X6, ret+104(FP)
	RET

// func scaleAVX2(dst []float32, s float32)
TEXT ·scaleAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	VBROADCASTSS s+24(FP), Y9
scale2loop:
	VMULPS       (DI), Y9, Y0
	VMOVUPS      Y0, (DI)
	ADDQ         $32, DI
	SUBQ         $8, CX
	JNZ          scale2loop
	VZEROUPPER
	RET

// func sumSquaresAVX2(x []float32) float64
TEXT ·sumSquaresAVX2(SB), NOSPLIT, $0-32
	MOVQ          x_base+0(FP), SI
	MOVQ          x_len+8(FP), CX
	VXORPS        Y4, Y4, Y4
	VXORPS        Y5, Y5, Y5
	TESTQ         $8, CX
	JZ            sumsq2pairs
	VMOVUPS       (SI), Y1
	VFMADD231PS   Y1, Y1, Y4
	ADDQ          $32, SI
	SUBQ          $8, CX
	JZ            sumsq2done
sumsq2pairs:
	VMOVUPS       (SI), Y1
	VMOVUPS       32(SI), Y2
	VFMADD231PS   Y1, Y1, Y4
	VFMADD231PS   Y2, Y2, Y5
	ADDQ          $64, SI
	SUBQ          $16, CX
	JNZ           sumsq2pairs
sumsq2done:
	VCVTPS2PD    X4, Y6
	VEXTRACTF128 $1, Y4, X1
	VCVTPS2PD    X1, Y1
	VADDPD       Y1, Y6, Y6
	VCVTPS2PD    X5, Y7
	VEXTRACTF128 $1, Y5, X1
	VCVTPS2PD    X1, Y1
	VADDPD       Y1, Y7, Y7
	VADDPD       Y7, Y6, Y6
	VEXTRACTF128 $1, Y6, X7
	VADDPD        X7, X6, X6
	VPERMILPD     $1, X6, X7
	VADDSD        X7, X6, X6
	VZEROUPPER
	MOVSD         X6, ret+24(FP)
	RET

// func scaleMulAVX2(dst, x, w, nextX, nextDst []float32, s float32)
TEXT ·scaleMulAVX2(SB), NOSPLIT, $0-124
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	MOVQ         w_base+48(FP), DX
	MOVQ         nextX_base+72(FP), BX
	MOVQ         nextDst_base+96(FP), R8
	VBROADCASTSS s+120(FP), Y9
scalemul2loop:
	PREFETCHT1   (BX)
	PREFETCHT1   (R8)
	VMULPS       (SI), Y9, Y0
	VMULPS       (DX), Y0, Y0
	VMOVUPS      Y0, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DX
	ADDQ         $32, DI
	ADDQ         $32, BX
	ADDQ         $32, R8
	SUBQ         $8, CX
	JNZ          scalemul2loop
	VZEROUPPER
	RET

// func siluAVX2(dst, x []float32)
TEXT ·siluAVX2(SB), NOSPLIT, $0-48
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	EXP_CONSTS_AVX2
	VXORPS       Y10, Y10, Y10
silu2loop:
	VMOVUPS      (SI), Y0
	VSUBPS       Y0, Y10, Y6
	EXP_AVX2(Y6, Y1, Y2, Y3, Y4, Y5)
	VADDPS       onex8<>(SB), Y6, Y6
	VDIVPS       Y6, Y0, Y0
	VMOVUPS      Y0, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DI
	SUBQ         $8, CX
	JNZ          silu2loop
	VZEROUPPER
	RET

// func swigluAVX2(dst, gate, up []float32)
TEXT ·swigluAVX2(SB), NOSPLIT, $0-72
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         gate_base+24(FP), SI
	MOVQ         up_base+48(FP), DX
	EXP_CONSTS_AVX2
	VXORPS       Y10, Y10, Y10
swiglu2loop:
	VMOVUPS      (SI), Y0
	VSUBPS       Y0, Y10, Y6
	EXP_AVX2(Y6, Y1, Y2, Y3, Y4, Y5)
	VADDPS       onex8<>(SB), Y6, Y6
	VDIVPS       Y6, Y0, Y0
	VMULPS       (DX), Y0, Y0
	VMOVUPS      Y0, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DX
	ADDQ         $32, DI
	SUBQ         $8, CX
	JNZ          swiglu2loop
	VZEROUPPER
	RET

// func maxAVX512(x []float32) float32
TEXT ·maxAVX512(SB), NOSPLIT, $0-28
	MOVQ          x_base+0(FP), SI
	MOVQ          x_len+8(FP), CX
	VBROADCASTSS  negInf<>(SB), Z0
	VMOVAPS       Z0, Z1
	TESTQ         $16, CX
	JZ            max5pairs
	VMAXPS        (SI), Z0, Z0
	ADDQ          $64, SI
	SUBQ          $16, CX
	JZ            max5done
max5pairs:
	VMAXPS        (SI), Z0, Z0
	VMAXPS        64(SI), Z1, Z1
	ADDQ          $128, SI
	SUBQ          $32, CX
	JNZ           max5pairs
max5done:
	VMAXPS        Z1, Z0, Z0
	VEXTRACTF32X8 $1, Z0, Y1
	VMAXPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VMAXPS        X1, X0, X0
	VPERMILPS     $0x4e, X0, X1
	VMAXPS        X1, X0, X0
	VPERMILPS     $0xb1, X0, X1
	VMAXPS        X1, X0, X0
	VZEROUPPER
	MOVSS         X0, ret+24(FP)
	RET

// func expShiftSumAVX512(dst, x, nextX, nextDst []float32, scale, shift float32) float64
TEXT ·expShiftSumAVX512(SB), NOSPLIT, $0-112
	MOVQ          dst_base+0(FP), DI
	MOVQ          dst_len+8(FP), CX
	MOVQ          x_base+24(FP), SI
	MOVQ          nextX_base+48(FP), BX
	MOVQ          nextDst_base+72(FP), DX
	VBROADCASTSS  scale+96(FP), Z9
	VBROADCASTSS  shift+100(FP), Z8
	EXP_CONSTS_AVX512
	VXORPS        Z5, Z5, Z5
expsum5loop:
	PREFETCHT1    (BX)
	PREFETCHT1    (DX)
	VMOVUPS       (SI), Z0
	VFMSUB213PS   Z8, Z9, Z0
	EXP_AVX512(Z0, Z1, Z2, Z3)
	VMOVUPS       Z0, (DI)
	VADDPS        Z0, Z5, Z5
	ADDQ          $64, SI
	ADDQ          $64, DI
	ADDQ          $64, BX
	ADDQ          $64, DX
	SUBQ          $16, CX
	JNZ           expsum5loop
	VCVTPS2PD     Y5, Z6
	VEXTRACTF32X8 $1, Z5, Y7
	VCVTPS2PD     Y7, Z7
	VADDPD        Z7, Z6, Z6
	VEXTRACTF64X4 $1, Z6, Y7
	VADDPD        Y7, Y6, Y6
	VEXTRACTF128  $1, Y6, X7
	VADDPD        X7, X6, X6
	VPERMILPD     $1, X6, X7
	VADDSD        X7, X6, X6
	VZEROUPPER
	MOVSD         X6, ret+104(FP)
	RET

// func scaleAVX512(dst []float32, s float32)
TEXT ·scaleAVX512(SB), NOSPLIT, $0-28
	MOVQ          dst_base+0(FP), DI
	MOVQ          dst_len+8(FP), CX
	VBROADCASTSS  s+24(FP), Z9
scale5loop:
	VMULPS        (DI), Z9, Z0
	VMOVUPS       Z0, (DI)
	ADDQ          $64, DI
	SUBQ          $16, CX
	JNZ           scale5loop
	VZEROUPPER
	RET

// func sumSquaresAVX512(x []float32) float64
TEXT ·sumSquaresAVX512(SB), NOSPLIT, $0-32
	MOVQ          x_base+0(FP), SI
	MOVQ          x_len+8(FP), CX
	VXORPS        Z4, Z4, Z4
	VXORPS        Z5, Z5, Z5
	TESTQ         $16, CX
	JZ            sumsq5pairs
	VMOVUPS       (SI), Z1
	VFMADD231PS   Z1, Z1, Z4
	ADDQ          $64, SI
	SUBQ          $16, CX
	JZ            sumsq5done
sumsq5pairs:
	VMOVUPS       (SI), Z1
	VMOVUPS       64(SI), Z2
	VFMADD231PS   Z1, Z1, Z4
	VFMADD231PS   Z2, Z2, Z5
	ADDQ          $128, SI
	SUBQ          $32, CX
	JNZ           sumsq5pairs
sumsq5done:
	VCVTPS2PD     Y4, Z6
	VEXTRACTF32X8 $1, Z4, Y1
	VCVTPS2PD     Y1, Z1
	VADDPD        Z1, Z6, Z6
	VCVTPS2PD     Y5, Z7
	VEXTRACTF32X8 $1, Z5, Y1
	VCVTPS2PD     Y1, Z1
	VADDPD        Z1, Z7, Z7
	VADDPD        Z7, Z6, Z6
	VEXTRACTF64X4 $1, Z6, Y7
	VADDPD        Y7, Y6, Y6
	VEXTRACTF128  $1, Y6, X7
	VADDPD        X7, X6, X6
	VPERMILPD     $1, X6, X7
	VADDSD        X7, X6, X6
	VZEROUPPER
	MOVSD         X6, ret+24(FP)
	RET

// func scaleMulAVX512(dst, x, w, nextX, nextDst []float32, s float32)
TEXT ·scaleMulAVX512(SB), NOSPLIT, $0-124
	MOVQ          dst_base+0(FP), DI
	MOVQ          dst_len+8(FP), CX
	MOVQ          x_base+24(FP), SI
	MOVQ          w_base+48(FP), DX
	MOVQ          nextX_base+72(FP), BX
	MOVQ          nextDst_base+96(FP), R8
	VBROADCASTSS  s+120(FP), Z9
scalemul5loop:
	PREFETCHT1    (BX)
	PREFETCHT1    (R8)
	VMULPS        (SI), Z9, Z0
	VMULPS        (DX), Z0, Z0
	VMOVUPS       Z0, (DI)
	ADDQ          $64, SI
	ADDQ          $64, DX
	ADDQ          $64, DI
	ADDQ          $64, BX
	ADDQ          $64, R8
	SUBQ          $16, CX
	JNZ           scalemul5loop
	VZEROUPPER
	RET

// func siluAVX512(dst, x []float32)
TEXT ·siluAVX512(SB), NOSPLIT, $0-48
	MOVQ          dst_base+0(FP), DI
	MOVQ          dst_len+8(FP), CX
	MOVQ          x_base+24(FP), SI
	EXP_CONSTS_AVX512
	VXORPS        Z10, Z10, Z10
silu5loop:
	VMOVUPS       (SI), Z0
	VSUBPS        Z0, Z10, Z6
	EXP_AVX512(Z6, Z1, Z2, Z3)
	VADDPS        Z20, Z6, Z6
	VDIVPS        Z6, Z0, Z0
	VMOVUPS       Z0, (DI)
	ADDQ          $64, SI
	ADDQ          $64, DI
	SUBQ          $16, CX
	JNZ           silu5loop
	VZEROUPPER
	RET

// func swigluAVX512(dst, gate, up []float32)
TEXT ·swigluAVX512(SB), NOSPLIT, $0-72
	MOVQ          dst_base+0(FP), DI
	MOVQ          dst_len+8(FP), CX
	MOVQ          gate_base+24(FP), SI
	MOVQ          up_base+48(FP), DX
	EXP_CONSTS_AVX512
	VXORPS        Z10, Z10, Z10
swiglu5loop:
	VMOVUPS       (SI), Z0
	VSUBPS        Z0, Z10, Z6
	EXP_AVX512(Z6, Z1, Z2, Z3)
	VADDPS        Z20, Z6, Z6
	VDIVPS        Z6, Z0, Z0
	VMULPS        (DX), Z0, Z0
	VMOVUPS       Z0, (DI)
	ADDQ          $64, SI
	ADDQ          $64, DX
	ADDQ          $64, DI
	SUBQ          $16, CX
	JNZ           swiglu5loop
	VZEROUPPER
	RET
