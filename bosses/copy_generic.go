//go:build !amd64 || purego

package bosses

func copyStream(dst, src []float32) { copy(dst, src) }
