package unit15

import (
	"fmt"

	"github.com/llmforge/forge/internal/cuda"
	"github.com/llmforge/forge/internal/cuda/kernels"
)

// This file is given: a Driver for a real GPU (15.6), on Linux, where
// internal/cuda reaches the CUDA driver.

// CUDA is a Driver for the first GPU of this machine, with the PTX of this
// unit's kernels loaded.
type CUDA struct {
	ctx  *cuda.Context
	mod  *cuda.Module
	bufs map[Ptr]cuda.Buffer // the device's buffers, by the handles given out
	next Ptr
	Name string // the GPU's name, as its driver gives it
}

// OpenCUDA opens the first GPU and loads the unit's kernels. Without a
// driver or a device its error wraps cuda.ErrNoDriver.
func OpenCUDA() (*CUDA, error) {
	ctx, err := cuda.NewContext(0)
	if err != nil {
		return nil, err
	}
	mod, err := ctx.Load(kernels.PTX("unit15"))
	if err != nil {
		ctx.Close()
		return nil, err
	}
	return &CUDA{ctx: ctx, mod: mod, bufs: map[Ptr]cuda.Buffer{}, Name: ctx.Name}, nil
}

// Close releases the GPU and everything allocated on it.
func (d *CUDA) Close() error { return d.ctx.Close() }

func (d *CUDA) Alloc(words int) (Ptr, error) {
	b, err := d.ctx.Alloc(4 * words)
	if err != nil {
		return 0, err
	}
	d.next++
	d.bufs[d.next] = b
	return d.next, nil
}

func (d *CUDA) Free(p Ptr) error {
	b, ok := d.bufs[p]
	if !ok {
		return fmt.Errorf("cuda: Free of %d, which is not allocated", p)
	}
	delete(d.bufs, p)
	return d.ctx.Free(b)
}

func (d *CUDA) CopyIn(dst Ptr, src []float32) error {
	b, ok := d.bufs[dst]
	if !ok {
		return fmt.Errorf("cuda: CopyIn to %d, which is not allocated", dst)
	}
	return d.ctx.CopyIn(b, src)
}

func (d *CUDA) CopyOut(dst []float32, src Ptr) error {
	b, ok := d.bufs[src]
	if !ok {
		return fmt.Errorf("cuda: CopyOut from %d, which is not allocated", src)
	}
	return d.ctx.CopyOut(dst, b)
}

func (d *CUDA) Launch(name string, grid, block Dim3, sharedWords int, args ...any) error {
	k, err := d.mod.Kernel(name)
	if err != nil {
		return err
	}
	cargs := make([]any, len(args))
	for i, a := range args {
		cargs[i] = a
		if p, ok := a.(Ptr); ok {
			if cargs[i], ok = d.bufs[p]; !ok {
				return fmt.Errorf("cuda: argument %d of %s is %d, which is not allocated", i, name, p)
			}
		}
	}
	return k.Launch(cuda.Dim3{X: grid.X, Y: grid.Y, Z: grid.Z}, cuda.Dim3{X: block.X, Y: block.Y, Z: block.Z}, 4*sharedWords, cargs...)
}
