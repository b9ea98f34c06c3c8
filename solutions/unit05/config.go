package unit05

import (
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
)

// Validate checks that the configuration describes a model this forward
// pass can run: every size positive, HeadDim even (RoPE rotates pairs),
// Heads a multiple of KVHeads (each key/value head serves a whole group of
// query heads), a positive finite RopeBase and RMSEps, a known
// RopeStyle, RopeFactors nil or HeadDim/2 positive finite values, and Yarn
// nil or a YaRN that can be applied: a finite Factor of at least 1, a
// positive OrigCtx, a positive finite BetaSlow, a finite BetaFast above
// BetaSlow, and a positive finite AttnFactor, checked in that order. The error
// names the first field at fault (Yarn's as "Yarn.Factor", …) and wraps
// unit00.ErrInvalid.
func (c Config) Validate() error {
	sizes := []struct {
		name string
		n    int
	}{
		{"Dim", c.Dim}, {"Layers", c.Layers}, {"Heads", c.Heads}, {"KVHeads", c.KVHeads},
		{"HeadDim", c.HeadDim}, {"FFN", c.FFN}, {"Vocab", c.Vocab}, {"MaxSeq", c.MaxSeq},
	}
	for _, s := range sizes {
		if s.n <= 0 {
			return fmt.Errorf("config: %s is %d, must be positive: %w", s.name, s.n, unit00.ErrInvalid)
		}
	}
	switch {
	case c.HeadDim%2 != 0:
		return fmt.Errorf("config: HeadDim is %d, must be even (RoPE rotates pairs): %w", c.HeadDim, unit00.ErrInvalid)
	case c.Heads%c.KVHeads != 0:
		return fmt.Errorf("config: Heads (%d) must be a multiple of KVHeads (%d): %w", c.Heads, c.KVHeads, unit00.ErrInvalid)
	case !(c.RopeBase > 0) || math.IsInf(c.RopeBase, 0):
		return fmt.Errorf("config: RopeBase is %v, must be positive and finite: %w", c.RopeBase, unit00.ErrInvalid)
	case !(c.RMSEps > 0) || math.IsInf(float64(c.RMSEps), 0):
		return fmt.Errorf("config: RMSEps is %v, must be positive and finite: %w", c.RMSEps, unit00.ErrInvalid)
	case c.Rope != RopeNorm && c.Rope != RopeNeox:
		return fmt.Errorf("config: Rope is %d, must be RopeNorm or RopeNeox: %w", int(c.Rope), unit00.ErrInvalid)
	case c.RopeFactors != nil && len(c.RopeFactors) != c.HeadDim/2:
		return fmt.Errorf("config: RopeFactors holds %d factors, must hold HeadDim/2 = %d: %w", len(c.RopeFactors), c.HeadDim/2, unit00.ErrInvalid)
	}
	for i, f := range c.RopeFactors {
		if !(f > 0) || math.IsInf(float64(f), 0) {
			return fmt.Errorf("config: RopeFactors[%d] is %v, must be positive and finite: %w", i, f, unit00.ErrInvalid)
		}
	}
	if y := c.Yarn; y != nil {
		finite := func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }
		switch {
		case !(y.Factor >= 1) || !finite(y.Factor):
			return fmt.Errorf("config: Yarn.Factor is %v, must be finite and at least 1 (YaRN lengthens the context): %w", y.Factor, unit00.ErrInvalid)
		case y.OrigCtx <= 0:
			return fmt.Errorf("config: Yarn.OrigCtx is %d, must be positive: %w", y.OrigCtx, unit00.ErrInvalid)
		case !(y.BetaSlow > 0) || !finite(y.BetaSlow):
			return fmt.Errorf("config: Yarn.BetaSlow is %v, must be positive and finite: %w", y.BetaSlow, unit00.ErrInvalid)
		case !(y.BetaFast > y.BetaSlow) || !finite(y.BetaFast):
			return fmt.Errorf("config: Yarn.BetaFast is %v, must be finite and above BetaSlow (%v): %w", y.BetaFast, y.BetaSlow, unit00.ErrInvalid)
		case !(y.AttnFactor > 0) || !finite(y.AttnFactor):
			return fmt.Errorf("config: Yarn.AttnFactor is %v, must be positive and finite: %w", y.AttnFactor, unit00.ErrInvalid)
		}
	}
	return nil
}
