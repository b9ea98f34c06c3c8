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

// TestC10_6_LoadExpertsEdges calls LoadExperts directly on edited metadata:
// the limits that are still valid, and errors that no other check catches
// first.
func TestC10_6_LoadExpertsEdges(t *testing.T) {
	base := openModel(t, moeSpec("llama", unit01.Q8_0))
	c, err := LoadConfig(base, 0)
	if err != nil {
		t.Fatal(err)
	}
	with := func(edit func([]KV) []KV) *File {
		return rewriteKVs(t, edit(append([]KV(nil), base.KV...)), Tensors(base))
	}
	if e, err := LoadExperts(with(setU32("llama.expert_count", 512)), c); err != nil || e.Experts != 512 {
		t.Errorf("LoadExperts with expert_count 512, llama.cpp's limit: %+v, %v; want 512 experts and no error", e, err)
	}
	for _, b := range []struct {
		what string
		f    *File
		c    unit05.Config
		says string
	}{
		{"no general.architecture", with(dropKey("general.architecture")), c, "general.architecture"},
		{"expert_count stored as a STRING", with(setKV("llama.expert_count", TypeString, "4")), c, "STRING"},
		{"expert_used_count stored as a STRING", with(setKV("llama.expert_used_count", TypeString, "2")), c, "STRING"},
		{"a config of FFN 0 (not LoadConfig's)", base, unit05.Config{Dim: c.Dim}, "FFN 0"},
	} {
		if e, err := LoadExperts(b.f, b.c); err == nil || !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), b.says) {
			t.Errorf("LoadExperts with %s: %+v, %v; want an error wrapping unit00.ErrInvalid that names %s", b.what, e, err, b.says)
		}
	}
	// qwen2moe: one expert of one is a mixture too; widths up to 2³¹−1
	// are read (binding them is another matter); a width of the wrong type
	// is an error.
	q := openModel(t, moeSpec("qwen2moe", unit01.F32))
	qc, err := LoadConfig(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	qwith := func(edit func([]KV) []KV) *File { return rewriteKVs(t, edit(append([]KV(nil), q.KV...)), Tensors(q)) }
	one := qwith(both(setU32("qwen2moe.expert_count", 1), setU32("qwen2moe.expert_used_count", 1)))
	if e, err := LoadExperts(one, qc); err != nil || e.Experts != 1 || e.Used != 1 {
		t.Errorf("LoadExperts of a qwen2moe file of one expert, one used: %+v, %v; want 1 of 1", e, err)
	}
	if e, err := LoadExperts(qwith(setU32("qwen2moe.expert_shared_feed_forward_length", 1<<31-1)), qc); err != nil || e.SharedFFN != 1<<31-1 {
		t.Errorf("LoadExperts with expert_shared_feed_forward_length 2³¹−1: %+v, %v; want it read", e, err)
	}
	if _, err := LoadExperts(qwith(setKV("qwen2moe.expert_feed_forward_length", TypeString, "32")), qc); err == nil || !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), "expert_feed_forward_length") || !strings.Contains(err.Error(), "STRING") {
		t.Errorf("LoadExperts with expert_feed_forward_length stored as a STRING: %v; want an error wrapping unit00.ErrInvalid that names it", err)
	}
	// LoadMoE of experts that do not fit unit06's rules (none used): the
	// error names the layer.
	e, err := LoadExperts(base, c)
	if err != nil {
		t.Fatal(err)
	}
	e.Used = 0
	if m, err := LoadMoE(base, 1, c, e); m != nil || !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), "blk.1: ") {
		t.Errorf("LoadMoE of layer 1 with no expert used: %v; want no block and an error wrapping unit00.ErrInvalid that names the layer, \"blk.1: …\"", err)
	}
	// A shared expert one wide (F32, so any width is a whole row).
	spec := moeSpec("qwen2moe", unit01.F32)
	spec.Experts.SharedFFN = 1
	m, err := Load(writeModel(t, spec), 0, nil)
	if err != nil {
		t.Fatalf("Load of a qwen2moe model whose shared expert is one wide: %v", err)
	}
	defer m.Close()
	if mw := m.Model.Weights.Layers[0].MoE.(*unit06.MoE).Weights(); mw.SharedGate == nil || mw.SharedDown == nil {
		t.Errorf("a shared expert one wide was not bound")
	}
}

// twiceAsWide doubles a tensor's first dimension (and its bytes): the rows
// are as many, but each is twice as long as it should be.
func twiceAsWide(name string) func([]Tensor) []Tensor {
	return func(ts []Tensor) []Tensor {
		for i, t := range ts {
			if t.Name == name {
				ts[i].Dims = append([]uint64{2 * t.Dims[0]}, t.Dims[1:]...)
				ts[i].Data = append(append([]byte(nil), t.Data...), t.Data...)
			}
		}
		return ts
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
			{name: "blk.1.ffn_down_exps.weight missing", tensors: dropTensors("blk.1.ffn_down_exps.weight"), kind: inv, says: []string{"no tensor named", "blk.1.ffn_down_exps.weight"}},
			{name: "a router twice as wide", tensors: twiceAsWide("blk.0.ffn_gate_inp.weight"), kind: inv, says: []string{"blk.0.ffn_gate_inp.weight", "has dims"}},
			{name: "blk.1.ffn_up_exps.weight twice as wide", tensors: twiceAsWide("blk.1.ffn_up_exps.weight"), kind: inv, says: []string{"blk.1.ffn_up_exps.weight", "has dims"}},
			{name: "no output_norm.weight and no expert used", tensors: dropTensors("output_norm.weight"), kvs: setU32(a+"expert_used_count", 0), kind: inv, says: []string{"output_norm.weight"}},
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
			_, dense := m.(*unit05.Dense)
			switch q, ok := m.(*unit09.QMatrix); {
			case info.Type == unit01.F32 && !dense:
				t.Errorf("%s expert %d: an F32 matrix bound as %T, want a *unit05.Dense copy for the float32 GEMM", name, expert, m)
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
		// A context no process could address: unit05's NewModel refuses
		// it, and Load says so.
		if m, err := Load(path, 1<<44, nil); m != nil || err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Load of a %s mixture of experts for 2⁴⁴ positions: %v; want no model and NewModel's error, naming the file", spec.Arch, err)
		}
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
