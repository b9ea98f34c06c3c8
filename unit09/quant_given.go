// Package unit09 is quantization: ggml's block formats, read (9.1) and
// written (9.2) byte for byte as GGUF files hold them; dot products of
// quantized weights with quantized activations, in Go and in SIMD assembly
// (9.3); and QMatrix, a quantized unit05.Matrix for the forward pass (9.4).
//
// Read docs/unit09.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit09
