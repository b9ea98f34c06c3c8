//go:build amd64 && !purego

#include "textflag.h"

// func copyAVX2(dst, src []float32)
// Copies len(dst) floats (a non-zero multiple of 32) with plain 32-byte
// loads and stores, four registers per iteration.
TEXT ·copyAVX2(SB), NOSPLIT, $0-48
	MOVQ    dst_base+0(FP), DI
	MOVQ    dst_len+8(FP), CX
	MOVQ    src_base+24(FP), SI
loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $32, CX
	JNZ     loop
	VZEROUPPER
	RET
