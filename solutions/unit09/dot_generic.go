//go:build !amd64 || purego

package unit09

import "github.com/llmforge/forge/unit01"

// Without assembly every dot product is the Go one.

func dotQ4_0(w, a []byte) float32 { return dotQ4_0Go(w, a) }
func dotQ8_0(w, a []byte) float32 { return dotQ8_0Go(w, a) }
func dotQ5_0(w, a []byte) float32 { return dotQ5_0Go(w, a) }
func dotQ4_1(w, a []byte) float32 { return dotQ4_1Go(w, a) }
func dotQ4_K(w, a []byte) float32 { return dotQ4_KGo(w, a) }
func dotQ5_K(w, a []byte) float32 { return dotQ5_KGo(w, a) }
func dotQ6_K(w, a []byte) float32 { return dotQ6_KGo(w, a) }

// dot4 has no four-row kernel here: the caller takes four dots.
func dot4(dt unit01.DType, w0, w1, w2, w3, a []byte, out *[4]float32) bool { return false }
