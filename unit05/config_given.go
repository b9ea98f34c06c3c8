// Package unit05 is the transformer: a Llama-family model's configuration
// and weights (5.1), token embeddings and rotary position embeddings (5.2),
// causal grouped-query attention (5.3), the SwiGLU feed-forward block
// (5.4), and the whole pre-norm forward pass from tokens to logits (5.5).
//
// Read docs/unit05.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit05

// RopeStyle is how rotary position embedding pairs up a head's dimensions.
type RopeStyle int

const (
	// RopeNorm rotates adjacent pairs (x[2i], x[2i+1]): ggml's mode 0, used
	// by every GGUF file of architecture "llama" (Llama 1–3, TinyLlama,
	// Mistral), whose converter permutes the Q and K rows to match.
	RopeNorm RopeStyle = iota
	// RopeNeox rotates the halves (x[i], x[i+HeadDim/2]): ggml's mode 2,
	// used by Qwen2, Phi-3, Gemma and Hugging Face checkpoints.
	RopeNeox
)

// String names the style as ggml does.
func (s RopeStyle) String() string {
	switch s {
	case RopeNorm:
		return "norm"
	case RopeNeox:
		return "neox"
	}
	return "RopeStyle(?)"
}

// Config holds a Llama-family model's hyper-parameters, the values a GGUF
// file stores under llama.* (unit10 reads them from there).
type Config struct {
	Dim      int // model width: the length of a token's hidden state
	Layers   int // transformer blocks
	Heads    int // query heads
	KVHeads  int // key/value heads: Heads (MHA), 1 (MQA), or a divisor of Heads (GQA)
	HeadDim  int // width of one head, usually Dim/Heads; even, for RoPE
	FFN      int // hidden width of the feed-forward block
	Vocab    int // number of tokens
	MaxSeq   int // the longest sequence (context) a Model processes
	RopeBase float64
	RMSEps   float32
	Rope     RopeStyle
	// TiedEmbeddings: the output projection is the embedding matrix
	// (Weights.Output is Weights.Embed), as in Llama 3.2 1B and Qwen2.5.
	TiedEmbeddings bool
	// QKVBias: the q, k and v projections add a bias (Qwen2).
	QKVBias bool
	// RopeFactors, when not nil, holds HeadDim/2 frequency factors: pair
	// i's angle is divided by RopeFactors[i]. Llama 3.1 and 3.2 files
	// carry them as the rope_freqs tensor (their long-context RoPE
	// scaling, baked into one factor per pair).
	RopeFactors []float32
	// Yarn, when not nil, stretches RoPE to a context longer than the one
	// the model was trained on with YaRN, as llama.cpp applies a file's
	// rope.scaling.type "yarn" (5.2). It works with RopeFactors or without.
	Yarn *Yarn
}

// Yarn describes YaRN RoPE scaling (Peng et al., 2023, "YaRN: Efficient
// Context Window Extension of Large Language Models") with the arithmetic
// of ggml's rope: pairs that turn many times within OrigCtx positions keep
// their angles (extrapolation), pairs that turn less than once are slowed
// Factor times (interpolation), the pairs between are blended, and every
// rotation is scaled by AttnFactor·(1 + 0.1·ln Factor), which sharpens the
// attention scores. NewYarn gives llama.cpp's defaults.
type Yarn struct {
	// Factor is s, how many times longer the context becomes
	// (rope.scaling.factor): interpolated pairs turn at θᵢ/s. At least 1.
	Factor float64
	// OrigCtx is the context the model was trained on before it was
	// extended (rope.scaling.original_context_length).
	OrigCtx int
	// BetaFast and BetaSlow bound the blend, in turns over OrigCtx
	// positions: a pair that turns BetaFast times or more keeps its angle,
	// one that turns BetaSlow times or fewer is interpolated. ggml's
	// defaults are 32 and 1.
	BetaFast, BetaSlow float64
	// AttnFactor multiplies the magnitude of every rotation, on top of
	// YaRN's own 1 + 0.1·ln Factor (rope.scaling.attn_factor; 1 when
	// absent).
	AttnFactor float64
}

// NewYarn returns YaRN of factor s over an original context of origCtx
// positions with llama.cpp's defaults: BetaFast 32, BetaSlow 1,
// AttnFactor 1.
func NewYarn(s float64, origCtx int) *Yarn {
	return &Yarn{Factor: s, OrigCtx: origCtx, BetaFast: 32, BetaSlow: 1, AttnFactor: 1}
}

// QDim is the width of all query heads together, Heads·HeadDim.
func (c Config) QDim() int { return c.Heads * c.HeadDim }

// KVDim is the width of all key (or value) heads together, KVHeads·HeadDim:
// the row width of the KV cache.
func (c Config) KVDim() int { return c.KVHeads * c.HeadDim }
