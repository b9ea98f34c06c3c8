package unit10

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit06"
	"github.com/llmforge/forge/unit09"
)

// moeSpec is a small mixture-of-experts model: Mixtral's layout for
// llama (4 experts, 2 used, renormalised), Qwen2-MoE's for qwen2moe (6
// experts, 2 used, a shared expert), with matrices of type dt.
func moeSpec(arch string, dt unit01.DType) ModelSpec {
	c := unit05.Config{Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16, FFN: 96, MaxSeq: 64,
		RopeBase: 10000, RMSEps: 1e-5, TiedEmbeddings: arch == "qwen2moe"}
	e := unit06.Config{Experts: 4, Used: 2, FFN: 96, Renormalize: true}
	if arch == "qwen2moe" {
		e = unit06.Config{Experts: 6, Used: 2, FFN: 32, SharedFFN: 96}
	}
	return ModelSpec{Name: "moe-" + arch, Arch: arch, Config: c, Experts: e, Vocab: tinyVocab(), Matrix: dt, Embed: dt, Output: dt, Seed: 11}
}

func TestC10_6_LoadExperts(t *testing.T) {
	for _, spec := range []ModelSpec{moeSpec("llama", unit01.Q8_0), moeSpec("qwen2moe", unit01.Q4_0)} {
		f := openModel(t, spec)
		c, err := LoadConfig(f, 0)
		if err != nil {
			t.Fatalf("LoadConfig of a %s mixture of experts: %v", spec.Arch, err)
		}
		if wantNeox := spec.Arch == "qwen2moe"; (c.Rope == unit05.RopeNeox) != wantNeox || c.QKVBias != wantNeox {
			t.Errorf("%s: LoadConfig gave Rope %v and QKVBias %v; qwen2moe has Qwen2's attention (NEOX RoPE, q/k/v biases), llama Llama's", spec.Arch, c.Rope, c.QKVBias)
		}
		e, err := LoadExperts(f, c)
		if err != nil {
			t.Fatalf("LoadExperts of a %s mixture of experts: %v", spec.Arch, err)
		}
		if e != spec.Experts {
			t.Errorf("%s: LoadExperts = %+v, want %+v", spec.Arch, e, spec.Experts)
		}
	}
	// A dense model has no experts: the zero Config.
	f := openModel(t, tinySpec("llama", unit01.Q8_0, false))
	c, _ := LoadConfig(f, 0)
	if e, err := LoadExperts(f, c); err != nil || e != (unit06.Config{}) {
		t.Errorf("LoadExperts of a dense model: %+v, %v; want the zero Config and no error", e, err)
	}
	// qwen2moe's widths without their keys: llama.cpp's defaults.
	spec := moeSpec("qwen2moe", unit01.F32)
	base := openModel(t, spec)
	kvs := dropKey("qwen2moe.expert_shared_feed_forward_length")(dropKey("qwen2moe.expert_feed_forward_length")(append([]KV(nil), base.KV...)))
	kvs = setU32("qwen2moe.feed_forward_length", 64)(kvs)
	f = rewriteKVs(t, kvs, Tensors(base))
	c, err := LoadConfig(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := LoadExperts(f, c); err != nil || e.FFN != 32 || e.SharedFFN != 64 {
		t.Errorf("LoadExperts of a qwen2moe file without expert_feed_forward_length and expert_shared_feed_forward_length (feed_forward_length 64, 2 experts used): %+v, %v; want FFN 64/2 = 32 and SharedFFN 64, as llama.cpp", e, err)
	}
}

// rewriteKVs writes a file of kvs and tensors and opens it.
func rewriteKVs(t *testing.T, kvs []KV, tensors []Tensor) *File {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(buf.Bytes(), "rewritten.gguf")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// renameTensor renames a tensor.
func renameTensor(from, to string) func([]Tensor) []Tensor {
	return func(ts []Tensor) []Tensor {
		for i := range ts {
			if ts[i].Name == from {
				ts[i].Name = to
			}
		}
		return ts
	}
}

// keepExperts keeps the first n experts of a stacked tensor.
func keepExperts(name string, n int) func([]Tensor) []Tensor {
	return func(ts []Tensor) []Tensor {
		for i, t := range ts {
			if t.Name == name {
				ts[i].Data = t.Data[:len(t.Data)/int(t.Dims[2])*n]
				ts[i].Dims = []uint64{t.Dims[0], t.Dims[1], uint64(n)}
			}
		}
		return ts
	}
}

// TestC10_6_BadExperts loads crafted mixture-of-experts files: each must
// be an error of the right kind that names the key or tensor at fault.
func TestC10_6_BadExperts(t *testing.T) {
	inv, uns := unit00.ErrInvalid, unit00.ErrUnsupported
	const a, q = "llama.", "qwen2moe."
	for _, set := range []struct {
		spec ModelSpec
		bad  []crafted
	}{
		{moeSpec("llama", unit01.Q8_0), []crafted{
			{name: "expert_count 0", kvs: setU32(a+"expert_count", 0), kind: inv, says: []string{"blk.0.ffn_gate_inp.weight", "expert_count"}},
			{name: "no expert_count", kvs: dropKey(a + "expert_count"), kind: inv, says: []string{"expert_count"}},
			{name: "expert_count 513", kvs: setU32(a+"expert_count", 513), kind: inv, says: []string{"expert_count = 513"}},
			{name: "expert_count 2 (the tensors hold 4)", kvs: setU32(a+"expert_count", 2), kind: inv, says: []string{"blk.0.ffn_gate_inp.weight"}},
			{name: "expert_used_count 0", kvs: setU32(a+"expert_used_count", 0), kind: inv, says: []string{"expert_used_count = 0"}},
			{name: "expert_used_count 5 of 4", kvs: setU32(a+"expert_used_count", 5), kind: inv, says: []string{"expert_used_count = 5"}},
			{name: "no expert_used_count", kvs: dropKey(a + "expert_used_count"), kind: inv, says: []string{"expert_used_count"}},
			{name: "merged gate and up experts", tensors: renameTensor("blk.0.ffn_gate_exps.weight", "blk.0.ffn_gate_up_exps.weight"), kind: uns, says: []string{"blk.0.ffn_gate_up_exps.weight"}},
			{name: "a selection bias", tensors: addTensors("blk.0.exp_probs_b.bias"), kind: uns, says: []string{"blk.0.exp_probs_b.bias"}},
			{name: "one tensor per expert", tensors: addTensors("blk.0.ffn_gate.0.weight"), kind: uns, says: []string{"blk.0.ffn_gate.0.weight"}},
			{name: "experts without a gate", tensors: dropTensors("blk.0.ffn_gate_exps.weight"), kind: uns, says: []string{"blk.0.ffn_gate_exps.weight"}},
			{name: "blk.1.ffn_down_exps.weight missing", tensors: dropTensors("blk.1.ffn_down_exps.weight"), kind: inv, says: []string{"blk.1.ffn_down_exps.weight"}},
			{name: "blk.1.ffn_up_exps.weight of 3 experts", tensors: keepExperts("blk.1.ffn_up_exps.weight", 3), kind: inv, says: []string{"blk.1.ffn_up_exps.weight"}},
			{name: "blk.0.ffn_gate_inp.weight missing", tensors: dropTensors("blk.0.ffn_gate_inp.weight"), kind: inv, says: []string{"blk.0.ffn_gate_inp.weight"}},
			{name: "the architecture qwen2", kvs: renameKeys("llama.", "qwen2."), kind: uns, says: []string{"qwen2.expert_count = 4"}},
		}},
		{moeSpec("qwen2moe", unit01.Q4_0), []crafted{
			{name: "no expert_count", kvs: dropKey(q + "expert_count"), kind: inv, says: []string{q + "expert_count"}},
			{name: "expert_feed_forward_length 0", kvs: setU32(q+"expert_feed_forward_length", 0), kind: inv, says: []string{"expert_feed_forward_length = 0"}},
			{name: "expert_shared_feed_forward_length 2^40", kvs: setU32(q+"expert_shared_feed_forward_length", 1<<40), kind: inv, says: []string{"expert_shared_feed_forward_length = 1099511627776"}},
			{name: "blk.1.ffn_gate_inp_shexp.weight missing", tensors: dropTensors("blk.1.ffn_gate_inp_shexp.weight"), kind: inv, says: []string{"blk.1.ffn_gate_inp_shexp.weight"}},
			{name: "blk.0.ffn_down_shexp.weight missing", tensors: dropTensors("blk.0.ffn_down_shexp.weight"), kind: inv, says: []string{"blk.0.ffn_down_shexp.weight"}},
		}},
		{tinySpec("llama", unit01.Q8_0, false), []crafted{
			{name: "stacked expert tensors in a dense file", tensors: stackExperts, kind: inv, says: []string{"blk.0.ffn_gate_exps.weight", "expert_count"}},
			{name: "expert_count 8 in a dense file", kvs: setU32(a+"expert_count", 8), kind: inv, says: []string{"expert_used_count"}},
		}},
	} {
		base := openModel(t, set.spec)
		dir := t.TempDir()
		for i, c := range set.bad {
			kvs, tensors := append([]KV(nil), base.KV...), Tensors(base)
			if c.kvs != nil {
				kvs = c.kvs(kvs)
			}
			if c.tensors != nil {
				tensors = c.tensors(tensors)
			}
			var buf bytes.Buffer
			if err := Write(&buf, kvs, tensors); err != nil {
				t.Fatalf("%s: Write: %v", c.name, err)
			}
			path := filepath.Join(dir, fmt.Sprintf("crafted-%d.gguf", i))
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			what := set.spec.Arch + " model with " + c.name
			err := loadNoPanic(t, what, path)
			if err == nil {
				t.Errorf("Load of a %s: no error", what)
				continue
			}
			var missing []string
			for _, s := range append([]string{path}, c.says...) {
				if !strings.Contains(err.Error(), s) {
					missing = append(missing, fmt.Sprintf("%q", s))
				}
			}
			if !errors.Is(err, c.kind) || len(missing) > 0 {
				t.Errorf("Load of a %s:\n  error %v\n  want one wrapping %v that names %s", what, err, c.kind, strings.Join(missing, " and "))
			}
		}
	}
}

// renameKeys gives every key starting with from the prefix to instead,
// general.architecture included: the same model under another
// architecture's name.
func renameKeys(from, to string) func([]KV) []KV {
	return func(kvs []KV) []KV {
		for i, kv := range kvs {
			if rest, ok := strings.CutPrefix(kv.Key, from); ok {
				kvs[i].Key = to + rest
			}
			if kv.Key == "general.architecture" {
				kvs[i].Value = strings.TrimSuffix(to, ".")
			}
		}
		return kvs
	}
}

// TestC10_6_LoadMoE: each expert is its own slice of the stacked tensor,
// in order, bound without a copy (but F32, copied for the GEMM); the
// router and the shared expert are bound as LoadWeights binds matrices.
func TestC10_6_LoadMoE(t *testing.T) {
	for _, spec := range []ModelSpec{moeSpec("llama", unit01.Q4_0), moeSpec("qwen2moe", unit01.Q8_0), moeSpec("llama", unit01.F32), moeSpec("llama", unit01.F16)} {
		f := openModel(t, spec)
		c, err := LoadConfig(f, 0)
		if err != nil {
			t.Fatal(err)
		}
		e := spec.Experts
		w, err := LoadWeights(f, c)
		if err != nil {
			t.Fatalf("LoadWeights of a %s %v mixture of experts: %v", spec.Arch, spec.Matrix, err)
		}
		check := func(name string, expert int, m unit05.Matrix) {
			info, data, err := f.Tensor(name)
			if err != nil {
				t.Fatal(err)
			}
			out, in := m.Dims()
			if uint64(in) != info.Dims[0] || uint64(out) != info.Dims[1] {
				t.Fatalf("%s expert %d: bound as %d×%d, but the file's dims are %v", name, expert, out, in, info.Dims)
			}
			if len(info.Dims) == 3 {
				size := len(data) / int(info.Dims[2])
				data = data[expert*size : (expert+1)*size]
			}
			want := oracle.DequantRow(int(info.Type), data)
			row := make([]float32, in)
			for _, r := range []int{0, out / 2, out - 1} {
				m.Row(row, r)
				oracle.AssertBound(t, fmt.Sprintf("%s expert %d row %d", name, expert, r), row, want[r*in:(r+1)*in], absBound(want[r*in:(r+1)*in]), nil)
			}
			switch q, ok := m.(*unit09.QMatrix); {
			case info.Type == unit01.F32:
			case !ok:
				t.Errorf("%s expert %d: a %v matrix bound as %T, want a *unit09.QMatrix view of the file", name, expert, info.Type, m)
			case !inside(data, q.Data):
				t.Errorf("%s expert %d: its bytes are not the file's slice of that expert (a copy, or another expert's)", name, expert)
			}
		}
		for l := range c.Layers {
			if w.Layers[l].Gate != nil || w.Layers[l].Up != nil || w.Layers[l].Down != nil {
				t.Errorf("%s: layer %d has a dense feed-forward beside its experts", spec.Arch, l)
			}
			m, ok := w.Layers[l].MoE.(*unit06.MoE)
			if !ok {
				t.Fatalf("%s: layer %d's MoE is %T, want a *unit06.MoE", spec.Arch, l, w.Layers[l].MoE)
			}
			mw := m.Weights()
			if mw.Used != e.Used || mw.Renormalize != e.Renormalize || len(mw.Gate) != e.Experts {
				t.Errorf("%s: layer %d has %d experts, %d used, renormalize %v; want %+v", spec.Arch, l, len(mw.Gate), mw.Used, mw.Renormalize, e)
			}
			p := fmt.Sprintf("blk.%d.", l)
			check(p+"ffn_gate_inp.weight", 0, mw.Router)
			for _, x := range []int{0, 1, e.Experts - 1} {
				check(p+"ffn_gate_exps.weight", x, mw.Gate[x])
				check(p+"ffn_up_exps.weight", x, mw.Up[x])
				check(p+"ffn_down_exps.weight", x, mw.Down[x])
			}
			if e.SharedFFN > 0 {
				check(p+"ffn_gate_shexp.weight", 0, mw.SharedGate)
				check(p+"ffn_up_shexp.weight", 0, mw.SharedUp)
				check(p+"ffn_down_shexp.weight", 0, mw.SharedDown)
				_, data, _ := f.Tensor(p + "ffn_gate_inp_shexp.weight")
				oracle.AssertClose(t, p+"ffn_gate_inp_shexp.weight", mw.SharedGateInp, oracle.DequantRow(0, data), oracle.Tol{})
			}
		}
	}
}

// TestC10_6_Load: a loaded F32 mixture of experts computes what the
// oracle computes from the same file's numbers.
func TestC10_6_Load(t *testing.T) {
	for _, spec := range []ModelSpec{moeSpec("llama", unit01.F32), moeSpec("qwen2moe", unit01.F32)} {
		path := writeModel(t, spec)
		m, err := Load(path, 0, nil)
		if err != nil {
			t.Fatalf("Load of a %s mixture of experts: %v", spec.Arch, err)
		}
		defer m.Close()
		c := m.Model.Config
		oc, ow := oracleWeights(t, m.File, c, spec.Experts)
		tokens := []int{256, 104, 101, 108, 108, 111, 44, 32, 119, 111, 114, 108, 100}
		logits := unit03.NewMat(len(tokens), c.Vocab)
		if err := m.Model.Forward(logits, tokens); err != nil {
			t.Fatal(err)
		}
		var want []float64
		for _, r := range oracle.LlamaForward(oc, ow, tokens) {
			want = append(want, r...)
		}
		var got []float32
		for r := range logits.Rows {
			got = append(got, logits.Row(r)...)
		}
		oracle.AssertCloseShape(t, fmt.Sprintf("%s: the loaded model's logits against the oracle on the file's weights [position, token]", spec.Arch), got, want, []int{len(tokens), c.Vocab}, oracle.Tol{Atol: 1e-4, Rtol: 1e-4})
	}
}

// oracleWeights reads every weight of an F32 file into the oracle's form.
func oracleWeights(t *testing.T, f *File, c unit05.Config, e unit06.Config) (oracle.LlamaConfig, *oracle.LlamaWeights) {
	t.Helper()
	get := func(name string) []float64 {
		_, data, err := f.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		return oracle.DequantRow(0, data)
	}
	split := func(name string) [][]float64 {
		all := get(name)
		var out [][]float64
		for x := range e.Experts {
			n := len(all) / e.Experts
			out = append(out, all[x*n:(x+1)*n])
		}
		return out
	}
	oc := oracle.LlamaConfig{Dim: c.Dim, Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		FFN: c.FFN, Vocab: c.Vocab, RopeBase: c.RopeBase, RMSEps: float64(c.RMSEps), NeoX: c.Rope == unit05.RopeNeox}
	ow := &oracle.LlamaWeights{Embed: get("token_embd.weight"), OutNorm: get("output_norm.weight")}
	if !c.TiedEmbeddings {
		ow.Output = get("output.weight")
	}
	for l := range c.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		ol := oracle.LlamaLayer{AttnNorm: get(p + "attn_norm.weight"), Wq: get(p + "attn_q.weight"), Wk: get(p + "attn_k.weight"),
			Wv: get(p + "attn_v.weight"), Wo: get(p + "attn_output.weight"), FFNNorm: get(p + "ffn_norm.weight")}
		if c.QKVBias {
			ol.Bq, ol.Bk, ol.Bv = get(p+"attn_q.bias"), get(p+"attn_k.bias"), get(p+"attn_v.bias")
		}
		om := &oracle.MoELayer{Experts: e.Experts, Used: e.Used, FFN: e.FFN, Renormalize: e.Renormalize, Router: get(p + "ffn_gate_inp.weight"),
			Gate: split(p + "ffn_gate_exps.weight"), Up: split(p + "ffn_up_exps.weight"), Down: split(p + "ffn_down_exps.weight")}
		if e.SharedFFN > 0 {
			om.SharedFFN, om.SharedGateInp = e.SharedFFN, get(p+"ffn_gate_inp_shexp.weight")
			om.SharedGate, om.SharedUp, om.SharedDown = get(p+"ffn_gate_shexp.weight"), get(p+"ffn_up_shexp.weight"), get(p+"ffn_down_shexp.weight")
		}
		ol.MoE = om
		ow.Layers = append(ow.Layers, ol)
	}
	return oc, ow
}
