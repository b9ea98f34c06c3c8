//go:build !amd64 || purego

package unit09

import "github.com/llmforge/forge/unit01"

// Without assembly nothing is packed: packs16 is false, so MulT neither
// packs nor calls rows16.

func packs16(dt unit01.DType) bool { return false }

func pack16(m *QMatrix) []byte { return nil }

func packedBlock(dt unit01.DType) (wb, sb int) { return 0, 0 }

func prepareSums(dt unit01.DType, dst, a []byte) {}

func (k *mulTask) rows16(g int, out *[8][16]float32) {
	panic("unit09: no 16-row kernel on this platform")
}
