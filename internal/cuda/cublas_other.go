//go:build !linux

package cuda

import "fmt"

// LoadBlas reports that this package loads cuBLAS on Linux only.
func LoadBlas() error {
	return fmt.Errorf("%w: this package loads cuBLAS on Linux only", ErrNoBlas)
}
