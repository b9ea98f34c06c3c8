//go:build amd64 && !purego

package bosses

import "golang.org/x/sys/cpu"

//go:noescape
func copyAVX2(dst, src []float32)

func copyStream(dst, src []float32) {
	n := 0
	if cpu.X86.HasAVX2 {
		n = len(dst) &^ 31
		if n > 0 {
			copyAVX2(dst[:n], src[:n])
		}
	}
	copy(dst[n:], src[n:])
}
