package unit10

import (
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
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
	var e unit06.Config
	arch, err := f.String("general.architecture")
	if err != nil {
		return e, err
	}
	key := func(k string) string { return arch + "." + k }
	n, err := optionalUint(f, key("expert_count"), 0)
	if err != nil {
		return e, err
	}
	switch stray := expertTensor(f); {
	case n == 0 && arch == "qwen2moe":
		return e, f.errorf(unit00.ErrInvalid, "%s is 0 or missing: a qwen2moe model has experts", key("expert_count"))
	case n == 0 && stray != "":
		return e, f.errorf(unit00.ErrInvalid, "tensor %s belongs to experts, but %s is 0 or missing", stray, key("expert_count"))
	case n == 0:
		return e, nil
	case arch == "qwen2":
		return e, f.errorf(unit00.ErrUnsupported, "%s = %d: a qwen2 model has no experts (Qwen2-MoE files are qwen2moe)", key("expert_count"), n)
	case n > unit06.MaxExperts:
		return e, f.errorf(unit00.ErrInvalid, "%s = %d, more than llama.cpp's limit of %d", key("expert_count"), n, unit06.MaxExperts)
	}
	used, err := f.Uint(key("expert_used_count"))
	if err != nil {
		return e, err
	}
	if used == 0 || used > n {
		return e, f.errorf(unit00.ErrInvalid, "%s = %d: want 1 to %s (%d)", key("expert_used_count"), used, key("expert_count"), n)
	}
	e = unit06.Config{Experts: int(n), Used: int(used), FFN: c.FFN, Renormalize: arch == "llama"}
	if arch == "qwen2moe" {
		for _, w := range []struct {
			key string
			def int
			dst *int
		}{{key("expert_feed_forward_length"), c.FFN / e.Used, &e.FFN}, {key("expert_shared_feed_forward_length"), c.FFN, &e.SharedFFN}} {
			v, err := optionalUint(f, w.key, uint64(w.def))
			if err != nil {
				return e, err
			}
			if v == 0 || v > math.MaxInt32 {
				return e, f.errorf(unit00.ErrInvalid, "%s = %d: want 1 to 2³¹−1", w.key, v)
			}
			*w.dst = int(v)
		}
	}
	if err := unsupportedExperts(f); err != nil {
		return e, err
	}
	if err := e.Validate(); err != nil {
		return e, fmt.Errorf("%s: %w", f.source, err)
	}
	return e, nil
}

// expertTensor returns the name of the first block's first expert tensor
// in f, "" when it has none.
func expertTensor(f *File) string {
	for _, name := range []string{"blk.0.ffn_gate_inp.weight", "blk.0.ffn_gate_exps.weight", "blk.0.ffn_up_exps.weight", "blk.0.ffn_down_exps.weight"} {
		if _, _, err := f.Tensor(name); err == nil {
			return name
		}
	}
	return ""
}

// optionalUint returns the integer at key, or def when the file has no
// such key.
func optionalUint(f *File, key string, def uint64) (uint64, error) {
	if _, ok := f.Lookup(key); !ok {
		return def, nil
	}
	return f.Uint(key)
}

// unsupportedExperts refuses the expert layouts of llama.cpp that Forge
// does not run, by the tensors of the first block that show them.
func unsupportedExperts(f *File) error {
	for _, t := range []struct{ name, what string }{
		{"blk.0.ffn_gate_up_exps.weight", "gate and up experts merged in one tensor"},
		{"blk.0.exp_probs_b.bias", "a bias on the expert selection (DeepSeek-V3 style)"},
		{"blk.0.ffn_gate.0.weight", "one tensor per expert (old Mixtral files; llama.cpp no longer loads them either)"},
	} {
		if _, _, err := f.Tensor(t.name); err == nil {
			return f.errorf(unit00.ErrUnsupported, "tensor %s: %s is not supported", t.name, t.what)
		}
	}
	if _, _, err := f.Tensor("blk.0.ffn_gate_exps.weight"); err != nil {
		return f.errorf(unit00.ErrUnsupported, "no tensor blk.0.ffn_gate_exps.weight: experts without a gate (SiLU of up alone) are not supported")
	}
	return nil
}

// LoadMoE binds layer l's mixture of experts for a model of config c with
// experts e (from LoadExperts): blk.l.ffn_gate_inp as the router and each
// expert a view of its slice of the stacked blk.l.ffn_{gate,up,down}_exps
// tensors (dims {Dim, FFN, Experts} and {FFN, Dim, Experts}, expert i's
// rows after expert i−1's; F32 experts are copied), with
// blk.l.ffn_{gate_inp,gate,up,down}_shexp when e has a shared expert.
// Errors are LoadWeights's: the tensor named, wrapping unit00.ErrInvalid.
func LoadMoE(f *File, l int, c unit05.Config, e unit06.Config) (*unit06.MoE, error) {
	b := binder{f: f}
	p := fmt.Sprintf("blk.%d.", l)
	w := &unit06.Weights{
		Router:      b.matrix(p+"ffn_gate_inp.weight", e.Experts, c.Dim),
		Gate:        b.experts(p+"ffn_gate_exps.weight", e.FFN, c.Dim, e.Experts),
		Up:          b.experts(p+"ffn_up_exps.weight", e.FFN, c.Dim, e.Experts),
		Down:        b.experts(p+"ffn_down_exps.weight", c.Dim, e.FFN, e.Experts),
		Used:        e.Used,
		Renormalize: e.Renormalize,
	}
	if e.SharedFFN > 0 {
		w.SharedGateInp = b.vector(p+"ffn_gate_inp_shexp.weight", c.Dim)
		w.SharedGate = b.matrix(p+"ffn_gate_shexp.weight", e.SharedFFN, c.Dim)
		w.SharedUp = b.matrix(p+"ffn_up_shexp.weight", e.SharedFFN, c.Dim)
		w.SharedDown = b.matrix(p+"ffn_down_shexp.weight", c.Dim, e.SharedFFN)
	}
	if b.err != nil {
		return nil, b.err
	}
	m, err := unit06.New(w)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", f.source, p[:len(p)-1], err)
	}
	return m, nil
}
