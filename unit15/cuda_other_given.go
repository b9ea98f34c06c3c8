//go:build !linux

package unit15

import (
	"fmt"

	"github.com/llmforge/forge/internal/cuda"
)

// This file is given: internal/cuda reaches the CUDA driver on Linux only,
// so elsewhere OpenCUDA says so, and its error wraps cuda.ErrNoDriver.

// CUDA is a Driver for a GPU; on this system none can be opened.
type CUDA struct {
	bufs map[Ptr]struct{}
	Name string
}

// OpenCUDA reports that this system has no CUDA driver that Forge uses.
func OpenCUDA() (*CUDA, error) {
	return nil, fmt.Errorf("unit15: a GPU is driven on Linux only: %w", cuda.ErrNoDriver)
}

var errNoCUDA = fmt.Errorf("unit15: no GPU on this system: %w", cuda.ErrNoDriver)

func (d *CUDA) Close() error                                                     { return errNoCUDA }
func (d *CUDA) Alloc(words int) (Ptr, error)                                     { return 0, errNoCUDA }
func (d *CUDA) Free(p Ptr) error                                                 { return errNoCUDA }
func (d *CUDA) CopyIn(dst Ptr, src []float32) error                              { return errNoCUDA }
func (d *CUDA) CopyOut(dst []float32, src Ptr) error                             { return errNoCUDA }
func (d *CUDA) Launch(name string, grid, block Dim3, shared int, a ...any) error { return errNoCUDA }
