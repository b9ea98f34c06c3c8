//go:build !amd64 || purego

package unit09

import "github.com/llmforge/forge/unit01"

// Without assembly the F16 and BF16 products are the Go ones.

func halfDot4(dt unit01.DType, w0, w1, w2, w3 []byte, a []float32, out *[4]float32) {
	out[0], out[1], out[2], out[3] = halfDotGo(dt, w0, a), halfDotGo(dt, w1, a), halfDotGo(dt, w2, a), halfDotGo(dt, w3, a)
}

func halfDot4x3(unit01.DType, []byte, []byte, []byte, []byte, []float32, []float32, []float32, *[12]float32) bool {
	return false
}

func halfDot(dt unit01.DType, w []byte, a []float32) float32 { return halfDotGo(dt, w, a) }

func widenHalf(dt unit01.DType, dst []float32, src []byte) { widenHalfGo(dt, dst, src) }

func roundHalf(dt unit01.DType, dst, src []float32) { roundHalfGo(dt, dst, src) }
