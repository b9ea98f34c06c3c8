package testmodel

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// TinyLlama is TinyLlama 1.1B's shape, with a context of maxSeq
// positions, and random Q4_0 weights (its output matrix in Q6_K, as real
// Q4_0 files have it): 0.6 GB that a decode step streams, a model's shape
// and bytes but not its values, for the bosses that time a real model's
// work. The norms are ones; every block's scale is small and finite, so
// the hidden states stay finite. The same maxSeq and seed give the same
// weights.
func TinyLlama(maxSeq int, seed uint64) (unit05.Config, *unit05.Weights, error) {
	c := unit05.Config{Dim: 2048, Layers: 22, Heads: 32, KVHeads: 4, HeadDim: 64, FFN: 5632, Vocab: 32000, MaxSeq: maxSeq,
		RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}
	g := rand.New(rand.NewPCG(seed, 0))
	var err error
	q := func(dt unit01.DType, rows, cols int) unit05.Matrix {
		m, e := randomQMatrix(g, dt, rows, cols)
		if err == nil {
			err = e
		}
		return m
	}
	w := &unit05.Weights{Embed: q(unit01.Q4_0, c.Vocab, c.Dim), OutNorm: ones(c.Dim), Output: q(unit01.Q6_K, c.Vocab, c.Dim)}
	for range c.Layers {
		w.Layers = append(w.Layers, unit05.Layer{AttnNorm: ones(c.Dim), FFNNorm: ones(c.Dim),
			Wq: q(unit01.Q4_0, c.QDim(), c.Dim), Wk: q(unit01.Q4_0, c.KVDim(), c.Dim), Wv: q(unit01.Q4_0, c.KVDim(), c.Dim),
			Wo:   q(unit01.Q4_0, c.Dim, c.QDim()),
			Gate: q(unit01.Q4_0, c.FFN, c.Dim), Up: q(unit01.Q4_0, c.FFN, c.Dim), Down: q(unit01.Q4_0, c.Dim, c.FFN)})
	}
	return c, w, err
}

// randomQMatrix is a rows×cols matrix of random Q4_0 or Q6_K blocks whose
// f16 scales d lie in [0.002, 0.012).
func randomQMatrix(g *rand.Rand, dt unit01.DType, rows, cols int) (unit05.Matrix, error) {
	rb, err := dt.RowBytes(cols)
	if err != nil {
		return nil, err
	}
	data := make([]byte, rows*rb)
	for i := 0; i+8 <= len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], g.Uint64())
	}
	at := map[unit01.DType]int{unit01.Q4_0: 0, unit01.Q6_K: 208}[dt] // where the block keeps d
	for o := 0; o < len(data); o += dt.BlockBytes() {
		binary.LittleEndian.PutUint16(data[o+at:], unit01.F32ToF16(float32(0.002+0.01*g.Float64())))
	}
	return unit09.NewQMatrix(dt, rows, cols, data)
}

func ones(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 1
	}
	return v
}
