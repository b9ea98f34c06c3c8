//go:build amd64 && !purego

package unit00

import "golang.org/x/sys/cpu"

var cpuSIMD = detectSIMD()

func detectSIMD() SIMDLevel {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL && cpu.X86.HasFMA:
		return SIMDAVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return SIMDAVX2
	}
	return SIMDNone
}
