// Package testmodel turns a unit05 model's configuration and Dense weights
// into the float64 oracle's, for the tests of the units built on unit05
// (unit05's own tests keep their copy: they cannot import a package that
// imports unit05). It is for tests only.
package testmodel

import (
	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit05"
)

// Weights copies a model's Dense weights for the float64 oracle; tied
// models have no output matrix of their own.
func Weights(w *unit05.Weights, tied bool) *oracle.LlamaWeights {
	mat := func(m unit05.Matrix) []float64 {
		d := m.(*unit05.Dense).W
		var out []float64
		for i := range d.Rows {
			out = append(out, oracle.Float64s(d.Row(i))...)
		}
		return out
	}
	o := &oracle.LlamaWeights{Embed: mat(w.Embed), OutNorm: oracle.Float64s(w.OutNorm)}
	if !tied {
		o.Output = mat(w.Output)
	}
	for _, l := range w.Layers {
		ol := oracle.LlamaLayer{AttnNorm: oracle.Float64s(l.AttnNorm), Wq: mat(l.Wq), Wk: mat(l.Wk), Wv: mat(l.Wv), Wo: mat(l.Wo),
			FFNNorm: oracle.Float64s(l.FFNNorm), Wgate: mat(l.Gate), Wup: mat(l.Up), Wdown: mat(l.Down)}
		if l.Bq != nil {
			ol.Bq, ol.Bk, ol.Bv = oracle.Float64s(l.Bq), oracle.Float64s(l.Bk), oracle.Float64s(l.Bv)
		}
		o.Layers = append(o.Layers, ol)
	}
	return o
}

// Config is c as the oracle takes it.
func Config(c unit05.Config) oracle.LlamaConfig {
	o := oracle.LlamaConfig{Dim: c.Dim, Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		FFN: c.FFN, Vocab: c.Vocab, RopeBase: c.RopeBase, RMSEps: float64(c.RMSEps), NeoX: c.Rope == unit05.RopeNeox}
	if c.RopeFactors != nil {
		o.RopeFactors = oracle.Float64s(c.RopeFactors)
	}
	if y := c.Yarn; y != nil {
		o.Yarn = &oracle.Yarn{Factor: y.Factor, OrigCtx: y.OrigCtx, BetaFast: y.BetaFast, BetaSlow: y.BetaSlow, AttnFactor: y.AttnFactor}
	}
	return o
}
