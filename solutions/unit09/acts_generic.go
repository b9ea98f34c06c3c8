//go:build !amd64 || purego

package unit09

// activationsQ8_0Row quantizes the row x (whole blocks of 32) into dst.
func activationsQ8_0Row(dst []byte, x []float32) { activationsQ8_0Go(dst, x) }
