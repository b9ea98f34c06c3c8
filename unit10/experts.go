package unit10

import (
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit06"
)

// LoadExperts reads a mixture-of-experts model's expert hyper-parameters
// for a model of config c (from LoadConfig). A file without
// <arch>.expert_count, or with 0, is a dense model: the zero Config and
// no error, unless it has expert tensors (blk.0.ffn_gate_inp,
// blk.0.ffn_*_exps) anyway.
// Otherwise Experts is expert_count (at most unit06.MaxExperts), Used is
// expert_used_count (1 to Experts), and the rest is what llama.cpp
// decides for the architecture: llama (Mixtral) experts are c.FFN wide
// and their weights renormalised; qwen2moe experts are
// expert_feed_forward_length wide (c.FFN / Used without it), their
// weights kept as they are, with a shared expert of
// expert_shared_feed_forward_length (c.FFN without it). Bad or missing
// values wrap unit00.ErrInvalid and name the key; a qwen2moe file without
// experts wraps ErrInvalid too. Experts in a qwen2 file, and layouts
// llama.cpp has but Forge does not run (merged gate and up experts, a
// selection bias, one tensor per expert as old Mixtral files have,
// experts without a gate), wrap unit00.ErrUnsupported and name the key or
// tensor.
func LoadExperts(f *File, c unit05.Config) (unit06.Config, error) {
	panic("TODO(10.6): write LoadExperts, see docs/unit10.md")
}

// LoadMoE binds layer l's mixture of experts for a model of config c with
// experts e (from LoadExperts): blk.l.ffn_gate_inp as the router and each
// expert a view of its slice of the stacked blk.l.ffn_{gate,up,down}_exps
// tensors (dims {Dim, FFN, Experts} and {FFN, Dim, Experts}, expert i's
// rows after expert i−1's; F32 experts are copied), with
// blk.l.ffn_{gate_inp,gate,up,down}_shexp when e has a shared expert.
// Errors are LoadWeights's: the tensor named, wrapping unit00.ErrInvalid.
func LoadMoE(f *File, l int, c unit05.Config, e unit06.Config) (*unit06.MoE, error) {
	panic("TODO(10.6): write LoadMoE, see docs/unit10.md")
}
