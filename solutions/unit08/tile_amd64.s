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

// TRANSPOSE_LANES gathers dims c, 4+c, 8+c and 12+c (c = 0 … 3) of 16
// keys: lane l of x0, x1, x2, x3 holds dim 4l+c of keys 0–3, 4–7, 8–11
// and 12–15, and the four rows written, R13 bytes apart from AX, are
// those dims, each a 4×4 transpose of 128-bit lanes in two rounds of
// VSHUFF32X4 (lanes 0, 1 and 2, 3 paired, then lanes 0, 2 and 1, 3).
#define TRANSPOSE_LANES(x0, x1, x2, x3) \
	VSHUFF32X4 $0x44, x1, x0, Z16; \
	VSHUFF32X4 $0xEE, x1, x0, Z17; \
	VSHUFF32X4 $0x44, x3, x2, Z18; \
	VSHUFF32X4 $0xEE, x3, x2, Z19; \
	VSHUFF32X4 $0x88, Z18, Z16, Z20; \
	VSHUFF32X4 $0xDD, Z18, Z16, Z21; \
	VSHUFF32X4 $0x88, Z19, Z17, Z22; \
	VSHUFF32X4 $0xDD, Z19, Z17, Z23; \
	VMOVUPS    Z20, (AX); \
	ADDQ       R13, AX; \
	VMOVUPS    Z21, (AX); \
	ADDQ       R13, AX; \
	VMOVUPS    Z22, (AX); \
	ADDQ       R13, AX; \
	VMOVUPS    Z23, (AX)

// func transpose16AVX512(kt *float32, ld int, kb *float32, ldk int, n16, hd16 int)
//
// Writes 16·n16 keys of 16·hd16 floats, key j at kb + j·ldk floats, into
// kt as 16·hd16 rows of keys, dim d's row at kt + d·ld floats: 16 keys
// by 16 dims at a time, loaded as 16 rows (Z0–Z15) and transposed in
// registers. Stage 1 interleaves pairs of rows (VUNPCKL/HPS), stage 2
// pairs of pairs (VUNPCKL/HPD): then lane l of Z(4q+c) holds dim 4l+c of
// keys 4q … 4q+3. Stage 3 gathers each dim's four lanes from Z(c),
// Z(4+c), Z(8+c), Z(12+c) with two rounds of VSHUFF32X4 (a 4×4
// transpose of 128-bit lanes).
TEXT ·transpose16AVX512(SB), NOSPLIT, $0-48
	MOVQ kt+0(FP), DI
	MOVQ ld+8(FP), R8
	SHLQ $2, R8
	MOVQ kb+16(FP), SI
	MOVQ ldk+24(FP), R9
	SHLQ $2, R9
	MOVQ n16+32(FP), CX
	MOVQ R8, R13
	SHLQ $2, R13 // four rows of kt

tkeys:
	MOVQ SI, R10 // this group's first key, dims 0 …
	MOVQ DI, R11 // its first column of kt, dim 0
	MOVQ hd16+40(FP), DX

tdims:
	MOVQ R10, AX
	VMOVUPS (AX), Z0
	ADDQ R9, AX
	VMOVUPS (AX), Z1
	ADDQ R9, AX
	VMOVUPS (AX), Z2
	ADDQ R9, AX
	VMOVUPS (AX), Z3
	ADDQ R9, AX
	VMOVUPS (AX), Z4
	ADDQ R9, AX
	VMOVUPS (AX), Z5
	ADDQ R9, AX
	VMOVUPS (AX), Z6
	ADDQ R9, AX
	VMOVUPS (AX), Z7
	ADDQ R9, AX
	VMOVUPS (AX), Z8
	ADDQ R9, AX
	VMOVUPS (AX), Z9
	ADDQ R9, AX
	VMOVUPS (AX), Z10
	ADDQ R9, AX
	VMOVUPS (AX), Z11
	ADDQ R9, AX
	VMOVUPS (AX), Z12
	ADDQ R9, AX
	VMOVUPS (AX), Z13
	ADDQ R9, AX
	VMOVUPS (AX), Z14
	ADDQ R9, AX
	VMOVUPS (AX), Z15
	VUNPCKLPS Z1, Z0, Z16
	VUNPCKHPS Z1, Z0, Z17
	VUNPCKLPS Z3, Z2, Z18
	VUNPCKHPS Z3, Z2, Z19
	VUNPCKLPS Z5, Z4, Z20
	VUNPCKHPS Z5, Z4, Z21
	VUNPCKLPS Z7, Z6, Z22
	VUNPCKHPS Z7, Z6, Z23
	VUNPCKLPS Z9, Z8, Z24
	VUNPCKHPS Z9, Z8, Z25
	VUNPCKLPS Z11, Z10, Z26
	VUNPCKHPS Z11, Z10, Z27
	VUNPCKLPS Z13, Z12, Z28
	VUNPCKHPS Z13, Z12, Z29
	VUNPCKLPS Z15, Z14, Z30
	VUNPCKHPS Z15, Z14, Z31
	VUNPCKLPD Z18, Z16, Z0
	VUNPCKHPD Z18, Z16, Z1
	VUNPCKLPD Z19, Z17, Z2
	VUNPCKHPD Z19, Z17, Z3
	VUNPCKLPD Z22, Z20, Z4
	VUNPCKHPD Z22, Z20, Z5
	VUNPCKLPD Z23, Z21, Z6
	VUNPCKHPD Z23, Z21, Z7
	VUNPCKLPD Z26, Z24, Z8
	VUNPCKHPD Z26, Z24, Z9
	VUNPCKLPD Z27, Z25, Z10
	VUNPCKHPD Z27, Z25, Z11
	VUNPCKLPD Z30, Z28, Z12
	VUNPCKHPD Z30, Z28, Z13
	VUNPCKLPD Z31, Z29, Z14
	VUNPCKHPD Z31, Z29, Z15
	MOVQ R11, AX
	TRANSPOSE_LANES(Z0, Z4, Z8, Z12)
	LEAQ (R11)(R8*1), AX
	TRANSPOSE_LANES(Z1, Z5, Z9, Z13)
	LEAQ (R11)(R8*2), AX
	TRANSPOSE_LANES(Z2, Z6, Z10, Z14)
	LEAQ (R11)(R8*2), AX
	ADDQ R8, AX
	TRANSPOSE_LANES(Z3, Z7, Z11, Z15)
	ADDQ $64, R10 // the next 16 dims
	LEAQ (R11)(R13*4), R11
	DECQ DX
	JNZ  tdims
	LEAQ (SI)(R9*8), SI // the next 16 keys
	LEAQ (SI)(R9*8), SI
	ADDQ $64, DI
	DECQ CX
	JNZ  tkeys
	VZEROUPPER
	RET

// The exponential of unit02's kernels (Cephes' polynomial on x − n·ln2,
// scaled by 2^n with VSCALEFPS), for expBlockAVX512's fused pass.
DATA flashExpLo<>+0(SB)/4, $0xc2d00000 // −104: e^x is 0 below
GLOBL flashExpLo<>(SB), RODATA|NOPTR, $4
DATA flashLog2e<>+0(SB)/4, $0x3fb8aa3b
GLOBL flashLog2e<>(SB), RODATA|NOPTR, $4
DATA flashLn2Hi<>+0(SB)/4, $0x3f318000
GLOBL flashLn2Hi<>(SB), RODATA|NOPTR, $4
DATA flashLn2Lo<>+0(SB)/4, $0xb95e8083
GLOBL flashLn2Lo<>(SB), RODATA|NOPTR, $4
DATA flashP<>+0(SB)/4, $0x39506967
DATA flashP<>+4(SB)/4, $0x3ab743ce
DATA flashP<>+8(SB)/4, $0x3c088908
DATA flashP<>+12(SB)/4, $0x3d2aa9c1
DATA flashP<>+16(SB)/4, $0x3e2aaaaa
DATA flashP<>+20(SB)/4, $0x3f000000
DATA flashP<>+24(SB)/4, $0x3f800000
GLOBL flashP<>(SB), RODATA|NOPTR, $28

// func expBlockAVX512(x *float32, n16 int, floor float32) (top, sum float32)
//
// One row of a block's scores, 16·n16 of them, folded in one call: top =
// max(floor, max x), then x[j] = e^(x[j]−top) in place, and their sum
// (float32, sixteen lanes). Scores are finite and x − top ≤ 0, so the
// input is clamped from below only.
TEXT ·expBlockAVX512(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n16+8(FP), CX
	VBROADCASTSS floor+16(FP), Z0
	MOVQ         SI, DI
	MOVQ         CX, DX

ebmax:
	VMAXPS (DI), Z0, Z0
	ADDQ   $64, DI
	DECQ   DX
	JNZ    ebmax
	VEXTRACTF64X4 $1, Z0, Y1
	VMAXPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VMAXPS        X1, X0, X0
	VPERMILPS     $0x4e, X0, X1
	VMAXPS        X1, X0, X0
	VPERMILPS     $0xb1, X0, X1
	VMAXPS        X1, X0, X0
	VMOVSS        X0, top+24(FP)
	VBROADCASTSS  X0, Z8
	VBROADCASTSS  flashExpLo<>(SB), Z30
	VBROADCASTSS  flashLog2e<>(SB), Z29
	VBROADCASTSS  flashLn2Hi<>(SB), Z28
	VBROADCASTSS  flashLn2Lo<>(SB), Z27
	VBROADCASTSS  flashP<>+0(SB), Z21
	VBROADCASTSS  flashP<>+4(SB), Z22
	VBROADCASTSS  flashP<>+8(SB), Z23
	VBROADCASTSS  flashP<>+12(SB), Z24
	VBROADCASTSS  flashP<>+16(SB), Z25
	VBROADCASTSS  flashP<>+20(SB), Z26
	VBROADCASTSS  flashP<>+24(SB), Z20
	VXORPS        Z5, Z5, Z5

ebexp:
	VMOVUPS      (SI), Z0
	VSUBPS       Z8, Z0, Z0
	VMAXPS       Z0, Z30, Z0
	VMULPS       Z29, Z0, Z1
	VRNDSCALEPS  $0, Z1, Z1
	VFNMADD231PS Z28, Z1, Z0
	VFNMADD231PS Z27, Z1, Z0
	VMOVAPS      Z21, Z2
	VFMADD213PS  Z22, Z0, Z2
	VFMADD213PS  Z23, Z0, Z2
	VFMADD213PS  Z24, Z0, Z2
	VFMADD213PS  Z25, Z0, Z2
	VFMADD213PS  Z26, Z0, Z2
	VMULPS       Z0, Z0, Z3
	VFMADD213PS  Z0, Z3, Z2
	VADDPS       Z20, Z2, Z2
	VSCALEFPS    Z1, Z2, Z0
	VMOVUPS      Z0, (SI)
	VADDPS       Z0, Z5, Z5
	ADDQ         $64, SI
	DECQ         CX
	JNZ          ebexp
	VEXTRACTF64X4 $1, Z5, Y1
	VADDPS        Y1, Y5, Y5
	VEXTRACTF128  $1, Y5, X1
	VADDPS        X1, X5, X5
	VPERMILPS     $0x4e, X5, X1
	VADDPS        X1, X5, X5
	VPERMILPS     $0xb1, X5, X1
	VADDPS        X1, X5, X5
	VMOVSS        X5, sum+28(FP)
	VZEROUPPER
	RET
