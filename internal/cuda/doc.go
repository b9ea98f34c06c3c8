// Package cuda calls the CUDA driver API (libcuda.so.1, which every NVIDIA
// driver installs) without cgo: github.com/ebitengine/purego opens the
// library and binds its C functions at run time. Nothing here needs the
// CUDA toolkit to build or to test: on a machine without the driver, or on
// an operating system this package does not support, Load returns an
// error wrapping ErrNoDriver and every test skips with that one line.
//
// It is the floor unit15 (the CUDA capstone) stands on: a context on one
// device, device memory, copies, and modules of PTX whose kernels are
// launched on a grid of blocks. Only the calls those need are bound.
package cuda
