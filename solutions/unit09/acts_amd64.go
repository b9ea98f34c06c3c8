//go:build amd64 && !purego

package unit09

// The activations of a Q4_0 or Q8_0 product are quantized once per row per
// MulT, on the calling goroutine before the pool starts: in a batch of
// decode steps that serial work showed as 7% of a step in Go, so AVX-512
// machines quantize in assembly (acts_amd64.s), byte for byte as Go does.

//go:noescape
func actsQ8_0AVX512(dst *byte, x *float32, blocks int)

// activationsQ8_0Row quantizes the row x (whole blocks of 32) into dst.
func activationsQ8_0Row(dst []byte, x []float32) {
	n := len(x) / 32
	if level != levelVNNI || n == 0 {
		activationsQ8_0Go(dst, x)
		return
	}
	_, _ = dst[n*34-1], x[n*32-1]
	actsQ8_0AVX512(&dst[0], &x[0], n)
}

//go:noescape
func sumsQ8_0AVX512(dst *byte, a *byte, blocks int, k int)
