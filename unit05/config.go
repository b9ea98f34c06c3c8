package unit05

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
	panic("TODO(5.1): write Config.Validate, see docs/unit05.md")
}
