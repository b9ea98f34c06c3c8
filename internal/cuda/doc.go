// Package cuda calls the CUDA driver API (libcuda.so.1, which every NVIDIA
// driver installs) without cgo: github.com/ebitengine/purego opens the
// library and binds its C functions at run time. Nothing here needs the
// CUDA toolkit to build or to test: on a machine without the driver, or on
// an operating system this package does not support, Load returns an
// error wrapping ErrNoDriver and every test skips with that one line.
//
// It is the floor unit15 (the CUDA capstone) and llm's --device cuda
// (internal/gpu) stand on: a context on one device, device memory, copies
// of float32s and of bytes, modules of PTX whose kernels are launched on
// a grid of blocks (waited for, or queued), device time through events,
// and cuBLAS (libcublas, loaded the same way, LoadBlas) for the GEMMs a
// kernel is measured against. Only the calls those need are bound.
package cuda
