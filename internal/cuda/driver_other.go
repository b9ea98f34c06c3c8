//go:build !linux

package cuda

import "fmt"

// Load reports that this package drives CUDA on Linux only.
func Load() error {
	return fmt.Errorf("%w: this package loads the driver on Linux only", ErrNoDriver)
}
