package unit10

import (
	"github.com/llmforge/forge/unit05"
)

// LoadConfig reads a model's hyper-parameters from f's metadata, for
// general.architecture "llama" (Llama 1–3, TinyLlama, Mistral, Mixtral:
// RoPE on adjacent pairs), "qwen2" (RoPE on halves, q/k/v biases) or
// "qwen2moe" (Qwen2's attention with experts; LoadExperts reads those).
// Optional keys take llama.cpp's defaults: head_count_kv = head_count, rope.freq_base =
// 10000. Vocab is token_embd's row count; TiedEmbeddings is set when the
// file has no output.weight, QKVBias when it has blk.0.attn_q.bias.
// MaxSeq is maxSeq, or the file's context_length when maxSeq ≤ 0. A
// missing key or tensor is an error wrapping unit00.ErrInvalid that names
// it; another architecture, or a rope.dimension_count narrower than the
// head width (partial rotary), wraps unit00.ErrUnsupported.
// RopeFactors are llama.cpp's: a rope_freqs.weight tensor (Llama 3.1 and
// 3.2: HeadDim/2 positive factors) times a linear scaling factor
// (rope.scale_linear or rope.scaling.factor; 0 or 1 is none, and
// rope.scaling.type "none" turns it off), nil when there are neither.
// rope.scaling.type "yarn" makes Yarn instead, as llama.cpp does for
// these architectures: Factor the scaling factor (0 or absent: 1),
// OrigCtx rope.scaling.original_context_length (0 or absent: the file's
// context_length, whatever maxSeq is), AttnFactor rope.scaling.attn_factor
// (absent: 1), and ggml's BetaFast 32 and BetaSlow 1 (llama.cpp reads no
// rope.scaling.yarn_* key for llama, qwen2 or qwen2moe, and neither does
// this loader); the factor is then not a RopeFactor. A YaRN factor below
// 1, and an attn_factor or original_context_length that is not a
// positive, finite number of its type, wrap ErrInvalid naming the key; an
// attn_factor other than 1 without YaRN, and a rope.scaling.type other
// than none, linear and yarn, wrap ErrUnsupported.
//
// Values that describe no model wrap unit00.ErrInvalid and name the key
// and its value ("head_count = 3"), checked in the order they depend on
// each other: head_count > 0 and dividing embedding_length, then
// head_count_kv > 0 and dividing head_count, then the rotary dimension
// (0 or wider than a head is invalid); embedding_length, block_count,
// feed_forward_length and context_length of 0, an epsilon ≤ 0 and a
// rope.freq_base that is not positive and finite; a block_count unlike
// the number of blk.N blocks in the file (naming both).
func LoadConfig(f *File, maxSeq int) (unit05.Config, error) {
	panic("TODO(10.4): write LoadConfig, see docs/unit10.md")
}

// LoadWeights binds f's tensors to a model of config c, by their GGUF
// names. Quantized, F16 and BF16 matrices become unit09.QMatrix views of
// the file's bytes (nothing copied); F32 matrices are copied into
// unit05.Dense matrices for the float32 GEMM; norms and biases are copied
// (they are small). A missing tensor, or one whose dimensions are not the
// [in, out] (ne[0] first) that c implies, is an error wrapping
// unit00.ErrInvalid that names it; of several, the first in the order of
// the tensor table (the embedding, the output, then block by block). A
// mixture-of-experts file's layers (LoadExperts) get their feed-forward
// from LoadMoE instead of ffn_gate, ffn_up and ffn_down (10.6).
func LoadWeights(f *File, c unit05.Config) (*unit05.Weights, error) {
	panic("TODO(10.4): write LoadWeights, see docs/unit10.md")
}
