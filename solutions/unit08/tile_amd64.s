//go:build amd64 && !purego

#include "textflag.h"

// func tileAVX512(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta *float32)
//
// For the 4 rows r of a 4×64 tile of C:
//
//	C[r] = alpha[r]·C[r] + beta[r]·Σ_p A[r][p]·B[p]   (alpha nil: C[r] = beta[r]·Σ_p …)
//
// A and B are read where they lie, without packing: row r of A starts at
// a + r·lda floats, row p of B (64 floats) at b + p·ldb. Accumulators
// Z16–Z31, four per row of C; each step of p loads one row of B and
// broadcasts one float of each row of A.
TEXT ·tileAVX512(SB), NOSPLIT, $0-72
	MOVQ    k+0(FP), CX
	MOVQ    a+8(FP), SI
	MOVQ    lda+16(FP), R8
	SHLQ    $2, R8
	MOVQ    b+24(FP), DI
	MOVQ    ldb+32(FP), R9
	SHLQ    $2, R9
	MOVQ    c+40(FP), DX
	MOVQ    ldc+48(FP), R10
	SHLQ    $2, R10
	MOVQ    alpha+56(FP), R11
	MOVQ    beta+64(FP), R12
	LEAQ    (SI)(R8*1), R13
	LEAQ    (R13)(R8*1), R14
	LEAQ    (R14)(R8*1), AX
	VXORPS  Z16, Z16, Z16
	VXORPS  Z17, Z17, Z17
	VXORPS  Z18, Z18, Z18
	VXORPS  Z19, Z19, Z19
	VXORPS  Z20, Z20, Z20
	VXORPS  Z21, Z21, Z21
	VXORPS  Z22, Z22, Z22
	VXORPS  Z23, Z23, Z23
	VXORPS  Z24, Z24, Z24
	VXORPS  Z25, Z25, Z25
	VXORPS  Z26, Z26, Z26
	VXORPS  Z27, Z27, Z27
	VXORPS  Z28, Z28, Z28
	VXORPS  Z29, Z29, Z29
	VXORPS  Z30, Z30, Z30
	VXORPS  Z31, Z31, Z31
	TESTQ   CX, CX
	JZ      tile_scale
tile_loop:
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VBROADCASTSS (SI), Z4
	VFMADD231PS Z4, Z0, Z16
	VFMADD231PS Z4, Z1, Z17
	VFMADD231PS Z4, Z2, Z18
	VFMADD231PS Z4, Z3, Z19
	VBROADCASTSS (R13), Z5
	VFMADD231PS Z5, Z0, Z20
	VFMADD231PS Z5, Z1, Z21
	VFMADD231PS Z5, Z2, Z22
	VFMADD231PS Z5, Z3, Z23
	VBROADCASTSS (R14), Z6
	VFMADD231PS Z6, Z0, Z24
	VFMADD231PS Z6, Z1, Z25
	VFMADD231PS Z6, Z2, Z26
	VFMADD231PS Z6, Z3, Z27
	VBROADCASTSS (AX), Z7
	VFMADD231PS Z7, Z0, Z28
	VFMADD231PS Z7, Z1, Z29
	VFMADD231PS Z7, Z2, Z30
	VFMADD231PS Z7, Z3, Z31
	ADDQ    $4, SI
	ADDQ    $4, R13
	ADDQ    $4, R14
	ADDQ    $4, AX
	ADDQ    R9, DI
	DECQ    CX
	JNZ     tile_loop
tile_scale:
	VBROADCASTSS 0(R12), Z4
	VMULPS  Z4, Z16, Z16
	VMULPS  Z4, Z17, Z17
	VMULPS  Z4, Z18, Z18
	VMULPS  Z4, Z19, Z19
	VBROADCASTSS 4(R12), Z5
	VMULPS  Z5, Z20, Z20
	VMULPS  Z5, Z21, Z21
	VMULPS  Z5, Z22, Z22
	VMULPS  Z5, Z23, Z23
	VBROADCASTSS 8(R12), Z6
	VMULPS  Z6, Z24, Z24
	VMULPS  Z6, Z25, Z25
	VMULPS  Z6, Z26, Z26
	VMULPS  Z6, Z27, Z27
	VBROADCASTSS 12(R12), Z7
	VMULPS  Z7, Z28, Z28
	VMULPS  Z7, Z29, Z29
	VMULPS  Z7, Z30, Z30
	VMULPS  Z7, Z31, Z31
	MOVQ    DX, BX
	TESTQ   R11, R11
	JZ      tile_store
	VBROADCASTSS 0(R11), Z4
	VMOVUPS 0(BX), Z0
	VFMADD231PS Z4, Z0, Z16
	VMOVUPS Z16, 0(BX)
	VMOVUPS 64(BX), Z1
	VFMADD231PS Z4, Z1, Z17
	VMOVUPS Z17, 64(BX)
	VMOVUPS 128(BX), Z2
	VFMADD231PS Z4, Z2, Z18
	VMOVUPS Z18, 128(BX)
	VMOVUPS 192(BX), Z3
	VFMADD231PS Z4, Z3, Z19
	VMOVUPS Z19, 192(BX)
	ADDQ    R10, BX
	VBROADCASTSS 4(R11), Z4
	VMOVUPS 0(BX), Z0
	VFMADD231PS Z4, Z0, Z20
	VMOVUPS Z20, 0(BX)
	VMOVUPS 64(BX), Z1
	VFMADD231PS Z4, Z1, Z21
	VMOVUPS Z21, 64(BX)
	VMOVUPS 128(BX), Z2
	VFMADD231PS Z4, Z2, Z22
	VMOVUPS Z22, 128(BX)
	VMOVUPS 192(BX), Z3
	VFMADD231PS Z4, Z3, Z23
	VMOVUPS Z23, 192(BX)
	ADDQ    R10, BX
	VBROADCASTSS 8(R11), Z4
	VMOVUPS 0(BX), Z0
	VFMADD231PS Z4, Z0, Z24
	VMOVUPS Z24, 0(BX)
	VMOVUPS 64(BX), Z1
	VFMADD231PS Z4, Z1, Z25
	VMOVUPS Z25, 64(BX)
	VMOVUPS 128(BX), Z2
	VFMADD231PS Z4, Z2, Z26
	VMOVUPS Z26, 128(BX)
	VMOVUPS 192(BX), Z3
	VFMADD231PS Z4, Z3, Z27
	VMOVUPS Z27, 192(BX)
	ADDQ    R10, BX
	VBROADCASTSS 12(R11), Z4
	VMOVUPS 0(BX), Z0
	VFMADD231PS Z4, Z0, Z28
	VMOVUPS Z28, 0(BX)
	VMOVUPS 64(BX), Z1
	VFMADD231PS Z4, Z1, Z29
	VMOVUPS Z29, 64(BX)
	VMOVUPS 128(BX), Z2
	VFMADD231PS Z4, Z2, Z30
	VMOVUPS Z30, 128(BX)
	VMOVUPS 192(BX), Z3
	VFMADD231PS Z4, Z3, Z31
	VMOVUPS Z31, 192(BX)
	ADDQ    R10, BX
	VZEROUPPER
	RET
tile_store:
	VMOVUPS Z16, 0(BX)
	VMOVUPS Z17, 64(BX)
	VMOVUPS Z18, 128(BX)
	VMOVUPS Z19, 192(BX)
	ADDQ    R10, BX
	VMOVUPS Z20, 0(BX)
	VMOVUPS Z21, 64(BX)
	VMOVUPS Z22, 128(BX)
	VMOVUPS Z23, 192(BX)
	ADDQ    R10, BX
	VMOVUPS Z24, 0(BX)
	VMOVUPS Z25, 64(BX)
	VMOVUPS Z26, 128(BX)
	VMOVUPS Z27, 192(BX)
	ADDQ    R10, BX
	VMOVUPS Z28, 0(BX)
	VMOVUPS Z29, 64(BX)
	VMOVUPS Z30, 128(BX)
	VMOVUPS Z31, 192(BX)
	ADDQ    R10, BX
	VZEROUPPER
	RET

// func dotsAVX512(n int, q *float32, k *float32, ldk int, chunks int, out *float32, scale float32)
//
// out[j] = scale · Σ_d q[d]·k[j·ldk + d] for j < n, d < 16·chunks: one
// query row's scores against n keys where they lie, each a dot product
// summed in one vector register, then across its lanes.
TEXT ·dotsAVX512(SB), NOSPLIT, $0-52
	MOVQ    n+0(FP), CX
	MOVQ    k+16(FP), DI
	MOVQ    ldk+24(FP), R8
	SHLQ    $2, R8
	MOVQ    out+40(FP), DX
	VMOVSS  scale+48(FP), X6
	TESTQ   CX, CX
	JZ      dots_done
dots_key:
	MOVQ    q+8(FP), SI
	MOVQ    DI, R9
	MOVQ    chunks+32(FP), BX
	VXORPS  Z4, Z4, Z4
dots_chunk:
	VMOVUPS (SI), Z1
	VFMADD231PS (R9), Z1, Z4
	ADDQ    $64, SI
	ADDQ    $64, R9
	DECQ    BX
	JNZ     dots_chunk
	VEXTRACTF64X4 $1, Z4, Y5
	VADDPS  Y5, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPS  X5, X4, X4
	VHADDPS X4, X4, X4
	VHADDPS X4, X4, X4
	VMULSS  X6, X4, X4
	VMOVSS  X4, (DX)
	ADDQ    $4, DX
	ADDQ    R8, DI
	DECQ    CX
	JNZ     dots_key
dots_done:
	VZEROUPPER
	RET

// The 16-key score kernels: 16 dot products of one query row with 16 keys
// at once, each in its own accumulator (Z16–Z31, so no FMA waits on the
// one before it), then the 16 accumulators summed across their lanes
// together: four rounds of shuffles and adds that halve the lanes and
// double the keys per register, leaving the 16 sums in one register. The
// keys are read through four base pointers (keys 0–3, 4–7, 8–11, 12–15,
// R9, R11, R12, R13) indexed by ldk (R8), 2·ldk and 3·ldk (R10).
//
// The rounds leave the sum of accumulator 4m+k in lane 4k+m, so
// accumulator 4m+k takes key 4k+m and the lanes come out in key order.

// RED1 folds each accumulator's 256-bit halves: a's 8 partial sums in the
// low half of a, b's in the high half.
#define RED1(a, b) \
	VSHUFF64X2 $0x44, b, a, Z0 ; \
	VSHUFF64X2 $0xEE, b, a, Z1 ; \
	VADDPS     Z1, Z0, a

// RED2 folds 128-bit lanes: a holds 4 partials of each of 4 accumulators.
#define RED2(a, b) \
	VSHUFF32X4 $0x88, b, a, Z0 ; \
	VSHUFF32X4 $0xDD, b, a, Z1 ; \
	VADDPS     Z1, Z0, a

// RED3 folds within 128-bit lanes (pairs of floats).
#define RED3(a, b) \
	VSHUFPS $0x88, b, a, Z0 ; \
	VSHUFPS $0xDD, b, a, Z1 ; \
	VADDPS  Z1, Z0, a

// KEYS16 sets R9, R11, R12, R13 to keys 0, 4, 8, 12 of the 16 at DI.
#define KEYS16 \
	MOVQ DI, R9 ; \
	LEAQ (DI)(R8*4), R11 ; \
	LEAQ (R11)(R8*4), R12 ; \
	LEAQ (R12)(R8*4), R13

// REDUCE16 sums the 16 accumulators and stores scale times them to DX.
#define REDUCE16 \
	RED1(Z16, Z17) ; RED1(Z18, Z19) ; RED1(Z20, Z21) ; RED1(Z22, Z23) ; \
	RED1(Z24, Z25) ; RED1(Z26, Z27) ; RED1(Z28, Z29) ; RED1(Z30, Z31) ; \
	RED2(Z16, Z18) ; RED2(Z20, Z22) ; RED2(Z24, Z26) ; RED2(Z28, Z30) ; \
	RED3(Z16, Z20) ; RED3(Z24, Z28) ; \
	RED3(Z16, Z24) ; \
	VMULPS  Z6, Z16, Z16 ; \
	VMOVUPS Z16, (DX)

#define ZERO16 \
	VXORPS Z16, Z16, Z16 ; VXORPS Z17, Z17, Z17 ; VXORPS Z18, Z18, Z18 ; VXORPS Z19, Z19, Z19 ; \
	VXORPS Z20, Z20, Z20 ; VXORPS Z21, Z21, Z21 ; VXORPS Z22, Z22, Z22 ; VXORPS Z23, Z23, Z23 ; \
	VXORPS Z24, Z24, Z24 ; VXORPS Z25, Z25, Z25 ; VXORPS Z26, Z26, Z26 ; VXORPS Z27, Z27, Z27 ; \
	VXORPS Z28, Z28, Z28 ; VXORPS Z29, Z29, Z29 ; VXORPS Z30, Z30, Z30 ; VXORPS Z31, Z31, Z31

// func dots16AVX512(n16 int, q *float32, k *float32, ldk int, chunks int, out *float32, scale float32)
//
// out[j] = scale · Σ_d q[d]·k[j·ldk + d] for j < 16·n16, d < 16·chunks.
TEXT ·dots16AVX512(SB), NOSPLIT, $0-52
	MOVQ         n16+0(FP), CX
	MOVQ         k+16(FP), DI
	MOVQ         ldk+24(FP), R8
	SHLQ         $2, R8
	LEAQ         (R8)(R8*2), R10
	MOVQ         out+40(FP), DX
	VBROADCASTSS scale+48(FP), Z6

d16_group:
	KEYS16
	MOVQ q+8(FP), SI
	MOVQ chunks+32(FP), BX
	ZERO16

d16_chunk:
	VMOVUPS     (SI), Z2
	VFMADD231PS (R9), Z2, Z16
	VFMADD231PS (R9)(R8*1), Z2, Z20
	VFMADD231PS (R9)(R8*2), Z2, Z24
	VFMADD231PS (R9)(R10*1), Z2, Z28
	VFMADD231PS (R11), Z2, Z17
	VFMADD231PS (R11)(R8*1), Z2, Z21
	VFMADD231PS (R11)(R8*2), Z2, Z25
	VFMADD231PS (R11)(R10*1), Z2, Z29
	VFMADD231PS (R12), Z2, Z18
	VFMADD231PS (R12)(R8*1), Z2, Z22
	VFMADD231PS (R12)(R8*2), Z2, Z26
	VFMADD231PS (R12)(R10*1), Z2, Z30
	VFMADD231PS (R13), Z2, Z19
	VFMADD231PS (R13)(R8*1), Z2, Z23
	VFMADD231PS (R13)(R8*2), Z2, Z27
	VFMADD231PS (R13)(R10*1), Z2, Z31
	ADDQ        $64, SI
	ADDQ        $64, R9
	ADDQ        $64, R11
	ADDQ        $64, R12
	ADDQ        $64, R13
	DECQ        BX
	JNZ         d16_chunk

	REDUCE16
	ADDQ $64, DX
	LEAQ (DI)(R8*8), DI
	LEAQ (DI)(R8*8), DI
	DECQ CX
	JNZ  d16_group
	VZEROUPPER
	RET

// F16FMA widens 16 halves at m and adds their products with Z2 to acc.
#define F16FMA(m, acc) \
	VCVTPH2PS   m, Z3 ; \
	VFMADD231PS Z3, Z2, acc

// func dots16F16AVX512(n16 int, q *float32, k *byte, ldk int, chunks int, out *float32, scale float32)
//
// dots16AVX512 for keys kept as halves, row j at k + j·ldk bytes, widened
// as they are read.
TEXT ·dots16F16AVX512(SB), NOSPLIT, $0-52
	MOVQ         n16+0(FP), CX
	MOVQ         k+16(FP), DI
	MOVQ         ldk+24(FP), R8
	LEAQ         (R8)(R8*2), R10
	MOVQ         out+40(FP), DX
	VBROADCASTSS scale+48(FP), Z6

h16_group:
	KEYS16
	MOVQ q+8(FP), SI
	MOVQ chunks+32(FP), BX
	ZERO16

h16_chunk:
	VMOVUPS (SI), Z2
	F16FMA((R9), Z16)
	F16FMA((R9)(R8*1), Z20)
	F16FMA((R9)(R8*2), Z24)
	F16FMA((R9)(R10*1), Z28)
	F16FMA((R11), Z17)
	F16FMA((R11)(R8*1), Z21)
	F16FMA((R11)(R8*2), Z25)
	F16FMA((R11)(R10*1), Z29)
	F16FMA((R12), Z18)
	F16FMA((R12)(R8*1), Z22)
	F16FMA((R12)(R8*2), Z26)
	F16FMA((R12)(R10*1), Z30)
	F16FMA((R13), Z19)
	F16FMA((R13)(R8*1), Z23)
	F16FMA((R13)(R8*2), Z27)
	F16FMA((R13)(R10*1), Z31)
	ADDQ    $64, SI
	ADDQ    $32, R9
	ADDQ    $32, R11
	ADDQ    $32, R12
	ADDQ    $32, R13
	DECQ    BX
	JNZ     h16_chunk

	REDUCE16
	ADDQ $64, DX
	LEAQ (DI)(R8*8), DI
	LEAQ (DI)(R8*8), DI
	DECQ CX
	JNZ  h16_group
	VZEROUPPER
	RET

// func widenF16AVX512(dst *float32, src *byte, lds, rows, n int)
// rows rows of n steps of 16 halves: VCVTPH2PS widens 32 bytes into a zmm
// of float32s. dst is dense; each source row starts lds bytes after the
// last one (R8).
TEXT ·widenF16AVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), R8
	MOVQ lds+16(FP), R9
	MOVQ rows+24(FP), DX

f16row:
	MOVQ R8, SI
	MOVQ n+32(FP), CX

f16step:
	VCVTPH2PS (SI), Z0
	VMOVUPS   Z0, (DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       f16step
	ADDQ      R9, R8
	DECQ      DX
	JNZ       f16row
	VZEROUPPER
	RET

// func widenQ8AVX512(dst *float32, src *byte, lds, rows, n int)
// rows rows of n Q8_0 blocks: each block's F16 scale widened and
// broadcast, its 32 int8s sign-extended to int32 16 at a time
// (VPMOVSXBD), converted and multiplied by it.
TEXT ·widenQ8AVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), R8
	MOVQ lds+16(FP), R9
	MOVQ rows+24(FP), DX

q8row:
	MOVQ R8, SI
	MOVQ n+32(FP), CX

q8block:
	MOVWLZX      (SI), AX
	MOVQ         AX, X0
	VCVTPH2PS    X0, X0
	VBROADCASTSS X0, Z0
	VPMOVSXBD    2(SI), Z1
	VPMOVSXBD    18(SI), Z2
	VCVTDQ2PS    Z1, Z1
	VCVTDQ2PS    Z2, Z2
	VMULPS       Z0, Z1, Z1
	VMULPS       Z0, Z2, Z2
	VMOVUPS      Z1, (DI)
	VMOVUPS      Z2, 64(DI)
	ADDQ         $34, SI
	ADDQ         $128, DI
	DECQ         CX
	JNZ          q8block
	ADDQ         R9, R8
	DECQ         DX
	JNZ          q8row
	VZEROUPPER
	RET
