//go:build amd64 && !purego

package bosses

import "golang.org/x/sys/cpu"

//go:noescape
func fmaLoopAVX512(iters int)

//go:noescape
func fmaLoopAVX2(iters int)

//go:noescape
func readAVX2(x []float32) float32

// fmaProbe returns a function running iters iterations of register-only
// FMAs on the widest vector unit present, the floating-point operations one
// iteration performs, and the unit's name.
func fmaProbe() (run func(iters int), flopsPerIter float64, isa string) {
	switch {
	// The same conditions as unit00.CPUSIMD, so the probe runs on the unit
	// the kernels use.
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL && cpu.X86.HasFMA:
		return fmaLoopAVX512, 24 * 16 * 2, "AVX-512"
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return fmaLoopAVX2, 12 * 8 * 2, "AVX2"
	}
	return fmaLoopGo, fmaGoFlops, "scalar Go"
}

func readStream(x []float32) float32 {
	var s float32
	n := 0
	if cpu.X86.HasAVX2 {
		n = len(x) &^ 31
		if n > 0 {
			s = readAVX2(x[:n])
		}
	}
	return s + readGo(x[n:])
}
