//go:build !linux

package unit15

import "testing"

// internal/cuda drives CUDA on Linux only: elsewhere the GPU boss has
// nothing to measure (gpu_test.go and boss_gpu_test.go hold the tests on
// a GPU).

// f16Figures are the GPU boss's figures (boss_gpu_test.go).
type f16Figures struct{ ratio, mine, cublas float64 }

// f16AgainstCublas measures nothing here, and says so.
func f16AgainstCublas(b *testing.B) (f16Figures, bool, string) {
	return f16Figures{}, false, "not measured: no GPU (internal/cuda drives CUDA on Linux only)"
}
