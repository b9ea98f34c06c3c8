//go:build !amd64 || purego

package unit09

import "github.com/llmforge/forge/unit01"

// Without assembly there is no tile kernel: tileBytes is 0, so MulT
// neither prepares tiles nor calls tile.

func tileBytes(dt unit01.DType, cols int) int { return 0 }

func prepareTile(dst []byte, a *[4][]byte) {}

func (k *mulTask) tile(j, r int, w *[4][]byte) { panic("unit09: no tile kernel on this platform") }
