package gpu

import (
	"errors"
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
