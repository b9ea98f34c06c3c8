package gpu

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/llmforge/forge/internal/cuda"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// These tests need no device and no written units: they check the choices
// the offload makes. The device's arithmetic is tested in cmd/llm, on the
// reference units (TestGPU...), where it is compared with the CPU's.

func TestFirstLayer(t *testing.T) {
	tests := []struct{ layers, n, want int }{
		{22, -1, 0},  // the default: all
		{22, 22, 0},  // all
		{22, 99, 0},  // more than there are: all, as llama.cpp
		{22, 0, 22},  // none
		{22, 1, 21},  // the last one
		{22, 10, 12}, // the last ten
		{1, 1, 0},
	}
	for _, tc := range tests {
		if got := FirstLayer(tc.layers, tc.n); got != tc.want {
			t.Errorf("FirstLayer(%d layers, n %d) = %d, want %d", tc.layers, tc.n, got, tc.want)
		}
	}
}

func TestKind(t *testing.T) {
	q := func(dt unit01.DType) unit05.Matrix { return &unit09.QMatrix{Type: dt, Rows: 2, Cols: 256} }
	tests := []struct {
		m    unit05.Matrix
		want string // the kind, or a part of why not
	}{
		{&unit05.Dense{}, KindF32},
		{q(unit01.F16), KindF16},
		{q(unit01.Q8_0), KindQ8_0},
		{q(unit01.Q4_0), KindQ4_0},
		{q(unit01.BF16), "BF16 weights"},
		{q(unit01.Q4_K), "Q4_K weights"},
		{q(unit01.Q6_K), "Q6_K weights"},
		{q(unit01.Q4_1), "Q4_1 weights"},
		{nil, "no matrix"},
		{other{}, "a gpu.other"},
	}
	for _, tc := range tests {
		kind, why := Kind(tc.m)
		switch {
		case kind == "" && !strings.Contains(why, tc.want):
			t.Errorf("Kind(%T %v): not offloaded because %q, want a reason containing %q", tc.m, tc.m, why, tc.want)
		case kind != "" && kind != tc.want:
			t.Errorf("Kind(%T): %q, want %q", tc.m, kind, tc.want)
		case kind != "" && why != "":
			t.Errorf("Kind(%T): %q with a reason, %q", tc.m, kind, why)
		}
	}
}

// other is a Matrix the device knows nothing of.
type other struct{}

func (other) Dims() (int, int)                     { return 1, 1 }
func (other) MulT(_ *unit03.Pool, _, _ unit03.Mat) {}
func (other) Row([]float32, int)                   {}

func TestAttentionOnDevice(t *testing.T) {
	tests := []struct {
		c    unit05.Config
		want string // "" when it runs on the device
	}{
		{unit05.Config{Heads: 32, KVHeads: 4, HeadDim: 64}, ""},
		{unit05.Config{Heads: 8, KVHeads: 8, HeadDim: 256}, ""},
		{unit05.Config{Heads: 8, KVHeads: 8, HeadDim: 8}, ""},
		{unit05.Config{Heads: 8, KVHeads: 8, HeadDim: 512}, "heads of 512 values"},
		{unit05.Config{Heads: 6, KVHeads: 4, HeadDim: 64}, "6 heads do not share 4"},
	}
	for _, tc := range tests {
		ok, why := AttentionOnDevice(tc.c)
		if ok != (tc.want == "") || !strings.Contains(why, tc.want) {
			t.Errorf("AttentionOnDevice(%d heads, %d kv heads, %d wide) = %v, %q; want %q", tc.c.Heads, tc.c.KVHeads, tc.c.HeadDim, ok, why, tc.want)
		}
	}
}

func TestPlanString(t *testing.T) {
	p := Plan{Device: "NVIDIA H100", First: 2, Layers: 22, Matrices: 140, Bytes: 3 << 20, CacheBytes: 1 << 20, Attention: true, CacheType: KindF16,
		OnCPU: []string{"blk.2.ffn_down.weight: Q6_K weights (the device multiplies f32, f16, q8_0 and q4_0)", "blk.3.ffn_down.weight: Q6_K weights"}}
	want := "cuda: NVIDIA H100: 20 of 22 layers offloaded (140 matrices, 3.00 MiB of weights; attention over an f16 cache of 1.00 MiB); " +
		"2 on the CPU: blk.2.ffn_down.weight: Q6_K weights (the device multiplies f32, f16, q8_0 and q4_0) and 1 more"
	if got := p.String(); got != want {
		t.Errorf("Plan.String:\n got %s\nwant %s", got, want)
	}
	p = Plan{Device: "d", First: 0, Layers: 2, Matrices: 14, AttentionOnHost: "heads of 512 values"}
	if got := p.String(); !strings.HasSuffix(got, "; attention stays on the CPU: heads of 512 values") {
		t.Errorf("Plan.String without device attention: %s", got)
	}
}

// TestLayerMatrices: the seven products of a layer, named as the GGUF
// file names them, each pointing at its field.
func TestLayerMatrices(t *testing.T) {
	var w unit05.Layer
	ms := layerMatrices(&w, 3)
	want := []string{"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"}
	fields := []*unit05.Matrix{&w.Wq, &w.Wk, &w.Wv, &w.Wo, &w.Gate, &w.Up, &w.Down}
	if len(ms) != len(want) {
		t.Fatalf("%d matrices, want %d", len(ms), len(want))
	}
	for i, m := range ms {
		if m.name != "blk.3."+want[i]+".weight" || m.m != fields[i] {
			t.Errorf("matrix %d: %s at %p, want blk.3.%s.weight at %p", i, m.name, m.m, want[i], fields[i])
		}
	}
}

// TestOpenWithoutDriver: where there is no usable driver, Open says so
// with an error that wraps cuda.ErrNoDriver, and nothing else happens.
func TestOpenWithoutDriver(t *testing.T) {
	if cuda.Load() == nil {
		t.Skip("a CUDA driver and device are here: the no-driver error cannot be seen")
	}
	d, err := Open()
	if d != nil || !errors.Is(err, cuda.ErrNoDriver) {
		t.Fatalf("Open() = %v, %v; want no device and an error wrapping cuda.ErrNoDriver", d, err)
	}
	t.Logf("Open: %v", err)
}

// fakeDevice is a backend that records what offload asks of it.
type fakeDevice struct {
	fail      string // the matrix kind whose upload fails, if any
	storeArgs string // newStore's arguments, formatted
}

// onDevice is a matrix the fake uploaded.
type onDevice struct{ unit05.Matrix }

// fakeStore is a store the fake made.
type fakeStore struct{ unit05.KVStore }

func (f *fakeDevice) Name() string { return "fake" }

func (f *fakeDevice) upload(m unit05.Matrix) (unit05.Matrix, int, error) {
	if kind, _ := Kind(m); kind == f.fail {
		return nil, 0, errors.New("out of memory")
	}
	return onDevice{m}, 1000, nil
}

func (f *fakeDevice) newStore(cpu unit05.KVStore, first, layers, maxSeq, kvDim int, half bool) (unit05.KVStore, int64, error) {
	f.storeArgs = fmt.Sprintf("cpu=%v first=%d layers=%d maxSeq=%d kvDim=%d half=%v", cpu, first, layers, maxSeq, kvDim, half)
	return fakeStore{}, 7, nil
}

// cpuStoreOf is a CPU store that names the layers it was made for.
type cpuStoreOf struct {
	unit05.KVStore
	layers int
}

func (s cpuStoreOf) String() string { return fmt.Sprintf("cpu store of %d", s.layers) }

// mixedModel is a model of 4 layers whose matrices are of every kind:
// four the device takes (f32, q8_0, q4_0, f16: Wq, Wk, Wv, Wo) and three
// it does not (Q4_K, BF16, Q6_K: Gate, Up, Down); layer 1 is a mixture of
// experts (no Gate, Up, Down).
func mixedModel(headDim int) *unit05.Model {
	q := func(dt unit01.DType) unit05.Matrix { return &unit09.QMatrix{Type: dt, Rows: 8, Cols: 256} }
	c := unit05.Config{Layers: 4, Heads: 8, KVHeads: 2, HeadDim: headDim, MaxSeq: 64}
	w := &unit05.Weights{Layers: make([]unit05.Layer, c.Layers)}
	for l := range w.Layers {
		w.Layers[l] = unit05.Layer{Wq: &unit05.Dense{}, Wk: q(unit01.Q8_0), Wv: q(unit01.Q4_0), Wo: q(unit01.F16),
			Gate: q(unit01.Q4_K), Up: q(unit01.BF16), Down: q(unit01.Q6_K)}
	}
	w.Layers[1].Gate, w.Layers[1].Up, w.Layers[1].Down, w.Layers[1].MoE = nil, nil, nil, moe{}
	return &unit05.Model{Config: c, Weights: w}
}

type moe struct{}

func (moe) Width() int                                       { return 0 }
func (moe) FeedForward(*unit03.Pool, unit03.Mat, unit03.Mat) {}

// TestOffload: which layers' matrices go to the device, what stays on the
// CPU and is said to, and the store that takes the model's place, for
// -ngl none, some, all and more than all, without a device.
func TestOffload(t *testing.T) {
	tests := []struct {
		n         int
		headDim   int
		half      bool
		onDevice  string // per layer, the matrices uploaded: "q k v o g u d" or "-"
		plan      string
		storeArgs string // "" when the store is not replaced
		cpuStore  string // the layers cpuStore was called for, "" if not called
	}{
		{n: 0, headDim: 64, onDevice: "- - - -",
			plan: "cuda: fake: 0 of 4 layers offloaded (0 matrices, 0.00 MiB of weights)"},
		{n: 2, headDim: 64, half: true, onDevice: "- - qkvo qkvo",
			plan:      "cuda: fake: 2 of 4 layers offloaded (8 matrices, 0.01 MiB of weights; attention over an f16 cache of 0.00 MiB); 6 on the CPU: blk.2.ffn_gate.weight: Q4_K weights (the device multiplies f32, f16, q8_0 and q4_0) and 5 more",
			storeArgs: "cpu=cpu store of 2 first=2 layers=4 maxSeq=64 kvDim=128 half=true", cpuStore: "2"},
		{n: 3, headDim: 32, onDevice: "- qkvo qkvo qkvo",
			plan:      "cuda: fake: 3 of 4 layers offloaded (12 matrices, 0.01 MiB of weights; attention over an f32 cache of 0.00 MiB); 7 on the CPU: blk.1's feed-forward (a mixture of experts) and 6 more",
			storeArgs: "cpu=cpu store of 1 first=1 layers=4 maxSeq=64 kvDim=64 half=false", cpuStore: "1"},
		{n: -1, headDim: 64, half: true, onDevice: "qkvo qkvo qkvo qkvo",
			storeArgs: "cpu=<nil> first=0 layers=4 maxSeq=64 kvDim=128 half=true"},
		{n: 99, headDim: 64, onDevice: "qkvo qkvo qkvo qkvo",
			storeArgs: "cpu=<nil> first=0 layers=4 maxSeq=64 kvDim=128 half=false"},
		{n: -1, headDim: 512, onDevice: "qkvo qkvo qkvo qkvo",
			plan: "cuda: fake: 4 of 4 layers offloaded (16 matrices, 0.02 MiB of weights); attention stays on the CPU: heads of 512 values (the kernel takes at most 256); 10 on the CPU: blk.0.ffn_gate.weight: Q4_K weights (the device multiplies f32, f16, q8_0 and q4_0) and 9 more"},
	}
	for _, tc := range tests {
		m := mixedModel(tc.headDim)
		var called []string
		cpuStore := func(layers int) (unit05.KVStore, error) {
			called = append(called, fmt.Sprint(layers))
			return cpuStoreOf{layers: layers}, nil
		}
		f := &fakeDevice{}
		p, err := offload(f, m, tc.n, tc.half, cpuStore)
		if err != nil {
			t.Fatalf("n %d: %v", tc.n, err)
		}
		var layers []string
		for l := range m.Weights.Layers {
			s := ""
			for i, lm := range layerMatrices(&m.Weights.Layers[l], l) {
				if _, ok := (*lm.m).(onDevice); ok {
					s += string("qkvogud"[i])
				}
			}
			if s == "" {
				s = "-"
			}
			layers = append(layers, s)
		}
		name := fmt.Sprintf("-ngl %d, heads of %d", tc.n, tc.headDim)
		if got := strings.Join(layers, " "); got != tc.onDevice {
			t.Errorf("%s: on the device %q, want %q", name, got, tc.onDevice)
		}
		if tc.plan != "" && p.String() != tc.plan {
			t.Errorf("%s: plan\n %s\nwant\n %s", name, p, tc.plan)
		}
		if f.storeArgs != tc.storeArgs {
			t.Errorf("%s: the device's store made with %q, want %q", name, f.storeArgs, tc.storeArgs)
		}
		if _, replaced := m.Store.(fakeStore); replaced != (tc.storeArgs != "") || p.Attention != replaced {
			t.Errorf("%s: m.Store is %T and the plan says attention on the device %v; want the device's store: %v", name, m.Store, p.Attention, tc.storeArgs != "")
		}
		if got := strings.Join(called, ","); got != tc.cpuStore {
			t.Errorf("%s: cpuStore called for %q layers, want %q", name, got, tc.cpuStore)
		}
	}
}

// TestOffloadError: an upload that fails is an error naming the matrix.
func TestOffloadError(t *testing.T) {
	m := mixedModel(64)
	_, err := offload(&fakeDevice{fail: KindQ4_0}, m, 1, true, nil)
	if err == nil || err.Error() != "blk.3.attn_v.weight: out of memory" {
		t.Errorf("offload with a failing upload: error %v, want blk.3.attn_v.weight: out of memory", err)
	}
}
