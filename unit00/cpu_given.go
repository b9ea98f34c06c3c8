package unit00

// SIMDLevel is a family of vector instructions a kernel may use.
type SIMDLevel int

const (
	SIMDNone   SIMDLevel = iota // plain Go: every CPU, and any build with the purego tag
	SIMDAVX2                    // x86-64 AVX2 with FMA3: 8 float32 lanes
	SIMDAVX512                  // x86-64 AVX-512 F, BW, DQ and VL: 16 float32 lanes
)

// String names the level.
func (l SIMDLevel) String() string {
	switch l {
	case SIMDAVX2:
		return "AVX2"
	case SIMDAVX512:
		return "AVX-512"
	}
	return "none"
}

// CPUSIMD returns the widest vector instruction set this CPU and build
// support: SIMDNone on arm64 and other architectures, and with the purego
// build tag (which forces the pure-Go paths everywhere).
//
// Detected CPU features are the one kind of package state the course
// allows: they are read once and never change.
func CPUSIMD() SIMDLevel { return cpuSIMD }
