package unit15

// This file is given: the device the host code of 15.5 drives.

// Ptr is an address in a device's memory, as a kernel receives it.
type Ptr uint64

// Driver is what host code needs of a GPU: memory, copies, and launches
// of this unit's kernels by name. CUDA drives a real GPU through the CUDA
// driver API; the tests of 15.5 also drive the emulator through it.
type Driver interface {
	// Alloc reserves words float32s of device memory.
	Alloc(words int) (Ptr, error)
	// Free releases what Alloc reserved.
	Free(p Ptr) error
	// CopyIn copies src to the start of dst; CopyOut the start of src to
	// dst.
	CopyIn(dst Ptr, src []float32) error
	CopyOut(dst []float32, src Ptr) error
	// Launch runs the kernel called name on a grid of blocks of block
	// threads, each block with sharedWords float32s of (dynamic) shared
	// memory, and returns when it has finished. Each argument is a Ptr or
	// an int32, in the order of the kernel's parameters in
	// internal/cuda/kernels/unit15.cu.
	Launch(name string, grid, block Dim3, sharedWords int, args ...any) error
}
