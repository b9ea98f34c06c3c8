package unit15

import (
	"errors"
	"fmt"

	"github.com/llmforge/forge/unit00"
)

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
	if err := checkGemm(&Global{c}, &Global{a}, &Global{b}, m, n, k); err != nil {
		return err
	}
	grid, shared := Dim3{(n + Tile - 1) / Tile, (m + Tile - 1) / Tile, 1}, 0
	switch name {
	case "gemm_naive":
	case "gemm_tiled":
		shared = 2 * Tile * Tile
	case "gemm_register":
		const side = Tile * Reg
		grid, shared = Dim3{(n + side - 1) / side, (m + side - 1) / side, 1}, 2*side*Tile
	default:
		return unknownKernel(name, "gemm_naive, gemm_tiled, gemm_register")
	}
	return onDevice(d, name, grid, Dim3{Tile, Tile, 1}, shared, c, [][]float32{a, b}, int32(m), int32(n), int32(k))
}

// DeviceTranspose sets out = inᵀ (as 15.3) on d with the kernel called
// name: "transpose_naive", "transpose_shared" or "transpose_padded".
func DeviceTranspose(d Driver, name string, out, in []float32, rows, cols int) error {
	if err := checkTranspose(&Global{out}, &Global{in}, rows, cols); err != nil {
		return err
	}
	shared := 0
	switch name {
	case "transpose_naive":
	case "transpose_shared":
		shared = Side * Side
	case "transpose_padded":
		shared = Side * (Side + 1)
	default:
		return unknownKernel(name, "transpose_naive, transpose_shared, transpose_padded")
	}
	return onDevice(d, name, squares(rows, cols), Dim3{Side, SideRows, 1}, shared, out, [][]float32{in}, int32(rows), int32(cols))
}

// DeviceFlashAttention computes attention (as 15.4) on d with the kernel
// flash_attention; causal is passed as the int32 1, or 0.
func DeviceFlashAttention(d Driver, o, q, k, v []float32, nq, nk, hd int, causal bool) error {
	if err := checkAttention(&Global{o}, &Global{q}, &Global{k}, &Global{v}, nq, nk, hd, causal); err != nil {
		return err
	}
	var c int32
	if causal {
		c = 1
	}
	width := (hd + KeyTile - 1) / KeyTile * KeyTile
	shared := (QueryTile+2*KeyTile)*(width+1) + QueryTile*KeyTile
	grid := Dim3{(nq + QueryTile - 1) / QueryTile, 1, 1}
	return onDevice(d, "flash_attention", grid, Dim3{KeyTile, QueryTile, 1}, shared, o, [][]float32{q, k, v},
		int32(nq), int32(nk), int32(hd), c)
}

// onDevice runs kernel name with out and ins on d: allocate, copy in,
// launch, copy out, free.
func onDevice(d Driver, name string, grid, block Dim3, shared int, out []float32, ins [][]float32, sizes ...int32) (err error) {
	var bufs []Ptr
	defer func() {
		for _, p := range bufs {
			if ferr := d.Free(p); ferr != nil {
				err = errors.Join(err, fmt.Errorf("%s: freeing its buffers: %w", name, ferr))
			}
		}
	}()
	for _, s := range append([][]float32{out}, ins...) {
		p, err := d.Alloc(len(s))
		if err != nil {
			return fmt.Errorf("%s: allocating %d words: %w", name, len(s), err)
		}
		bufs = append(bufs, p)
	}
	for i, s := range ins {
		if err := d.CopyIn(bufs[1+i], s); err != nil {
			return fmt.Errorf("%s: copying input %d in: %w", name, i, err)
		}
	}
	args := make([]any, 0, len(bufs)+len(sizes))
	for _, p := range bufs {
		args = append(args, p)
	}
	for _, s := range sizes {
		args = append(args, s)
	}
	if err := d.Launch(name, grid, block, shared, args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := d.CopyOut(out, bufs[0]); err != nil {
		return fmt.Errorf("%s: copying the output out: %w", name, err)
	}
	return nil
}

func unknownKernel(name, want string) error {
	return fmt.Errorf("device: no kernel %q here: want one of %s: %w", name, want, unit00.ErrInvalid)
}
