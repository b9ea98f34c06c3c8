package unit03

// Kernel names a micro-kernel: the innermost loop of the blocked product.
type Kernel int

const (
	KernelGo     Kernel = iota // pure Go, 4×4 tiles: every CPU
	KernelAVX2                 // x86-64 AVX2 + FMA, 6×16 tiles
	KernelAVX512               // x86-64 AVX-512, 12×32 tiles
)

// String names the kernel.
func (k Kernel) String() string {
	panic("TODO(3.4): write Kernel.String, see docs/unit03.md")
}

// Kernels returns the kernels this CPU and build can run, the pure-Go one
// first and the fastest last.
func Kernels() []Kernel {
	panic("TODO(3.4): write Kernels, see docs/unit03.md")
}

// Best returns the fastest kernel this CPU and build can run.
func Best() Kernel {
	panic("TODO(3.4): write Best, see docs/unit03.md")
}

// MatMul sets C = A·B with micro-kernel k, blocked for the caches and
// spread over the pool's goroutines (p may be nil: one thread). It panics
// (unit00.Check) on shapes that do not fit or a kernel this CPU lacks.
func MatMul(p *Pool, k Kernel, c, a, b Mat) {
	panic("TODO(3.4): write MatMul, see docs/unit03.md")
}

// MatMulT sets C = A·Bᵀ, B given as its N×K transpose bt (weights stored
// [out, in]), like MatMul.
func MatMulT(p *Pool, k Kernel, c, a, bt Mat) {
	panic("TODO(3.4): write MatMulT, see docs/unit03.md")
}
