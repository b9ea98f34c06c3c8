package unit15

// The host side of 15.5: this unit's kernels on a real device, through a
// Driver. Each function checks its arguments as its Go twin does, then
// allocates the device buffers (the output first, then the inputs),
// copies the inputs in, launches the CUDA C twin of the Go kernel with the
// same grid, blocks and shared memory, copies the output back and frees
// every buffer it allocated, also when a step fails. The kernel's
// arguments are the buffers in that order, then its sizes as int32s. A
// failed step is returned wrapped, naming the kernel; an unknown kernel
// name is an error wrapping unit00.ErrInvalid.

// DeviceGemm computes C = A·B (as 15.2: A m×k, B k×n, C m×n, row-major)
// on d with the kernel called name: "gemm_naive", "gemm_tiled" or
// "gemm_register", the twins of GemmNaive, GemmTiled and GemmRegister.
func DeviceGemm(d Driver, name string, c, a, b []float32, m, n, k int) error {
	panic("TODO(15.5): write DeviceGemm, see docs/unit15.md")
}

// DeviceTranspose sets out = inᵀ (as 15.3) on d with the kernel called
// name: "transpose_naive", "transpose_shared" or "transpose_padded".
func DeviceTranspose(d Driver, name string, out, in []float32, rows, cols int) error {
	panic("TODO(15.5): write DeviceTranspose, see docs/unit15.md")
}

// DeviceFlashAttention computes attention (as 15.4) on d with the kernel
// flash_attention; causal is passed as the int32 1, or 0.
func DeviceFlashAttention(d Driver, o, q, k, v []float32, nq, nk, hd int, causal bool) error {
	panic("TODO(15.5): write DeviceFlashAttention, see docs/unit15.md")
}
