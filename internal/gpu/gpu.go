// Package gpu runs part of a model on a CUDA device: llm's --device cuda
// and --n-gpu-layers. The offloaded layers' weights are uploaded once;
// their seven matrix products (Wq, Wk, Wv, Wo, Gate, Up, Down) and their
// attention, over keys and values kept on the device, run there through
// the kernels of internal/cuda/kernels/engine.cu. The rest (embedding,
// norms, RoPE, SwiGLU, the output layer, sampling, and the layers not
// offloaded) stays on the CPU.
//
// The offload plugs into the model's own interfaces: a device Matrix
// replaces a unit05.Matrix (its MulT copies x in, launches, copies y out),
// and a Store replaces the model's unit05.KVStore, handing the layers that
// stay on the CPU to the CPU's store. The forward pass does not change.
//
// Only Linux has a driver binding (internal/cuda); elsewhere Open reports
// that there is none.
package gpu

import (
	"fmt"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// FirstLayer is the first of the layers that n offloads out of layers:
// the last n, as llama.cpp's -ngl picks them (the layers nearest the
// output). A negative n, or one larger than layers, offloads them all;
// 0 offloads none (FirstLayer is then layers).
func FirstLayer(layers, n int) int {
	if n < 0 || n > layers {
		return 0
	}
	return layers - n
}

// Weight kinds the device multiplies, named as the kernels are
// (mul_t_<kind>).
const (
	KindF32  = "f32"
	KindF16  = "f16"
	KindQ8_0 = "q8_0"
	KindQ4_0 = "q4_0"
)

// Kind is the kernel a matrix would run on the device, or "" and why it
// stays on the CPU.
func Kind(m unit05.Matrix) (kind, why string) {
	switch w := m.(type) {
	case *unit05.Dense:
		return KindF32, ""
	case *unit09.QMatrix:
		switch w.Type {
		case unit01.F16:
			return KindF16, ""
		case unit01.Q8_0:
			return KindQ8_0, ""
		case unit01.Q4_0:
			return KindQ4_0, ""
		}
		return "", fmt.Sprintf("%v weights (the device multiplies f32, f16, q8_0 and q4_0)", w.Type)
	case nil:
		return "", "no matrix"
	}
	return "", fmt.Sprintf("a %T (the device multiplies f32, f16, q8_0 and q4_0 weights)", m)
}

// MaxHeadDim is the widest head the attention kernel takes (its
// MAX_HEAD_DIM): a lane of a warp holds up to eight of a head's values.
const MaxHeadDim = 256

// AttentionOnDevice says whether the attention of c's layers can run on
// the device, and if not why.
func AttentionOnDevice(c unit05.Config) (bool, string) {
	switch {
	case c.HeadDim > MaxHeadDim:
		return false, fmt.Sprintf("heads of %d values (the kernel takes at most %d)", c.HeadDim, MaxHeadDim)
	case c.KVHeads <= 0 || c.Heads%c.KVHeads != 0:
		return false, fmt.Sprintf("%d heads do not share %d key/value heads evenly", c.Heads, c.KVHeads)
	}
	return true, ""
}

// Plan is what Offload did: the layers it offloaded, the matrices that
// went to the device and those that stayed, and where attention runs.
type Plan struct {
	Device          string   // the device's name
	First, Layers   int      // layers First … Layers−1 are offloaded
	Matrices        int      // matrices uploaded
	Bytes           int64    // their weights' bytes on the device
	CacheBytes      int64    // the device's keys and values
	Attention       bool     // the offloaded layers attend on the device
	CacheType       string   // the device cache's type: f32 or f16
	OnCPU           []string // what stays on the CPU in the offloaded layers, and why
	AttentionOnHost string   // why attention stays on the CPU, if it does
}

// Offloaded is the number of layers offloaded.
func (p Plan) Offloaded() int { return p.Layers - p.First }

// String is the plan in one line, as llm prints it on stderr.
func (p Plan) String() string {
	s := fmt.Sprintf("cuda: %s: %d of %d layers offloaded (%d matrices, %.2f MiB of weights", p.Device, p.Offloaded(), p.Layers, p.Matrices, float64(p.Bytes)/(1<<20))
	if p.Attention {
		s += fmt.Sprintf("; attention over an %s cache of %.2f MiB", p.CacheType, float64(p.CacheBytes)/(1<<20))
	}
	s += ")"
	if p.AttentionOnHost != "" {
		s += "; attention stays on the CPU: " + p.AttentionOnHost
	}
	if len(p.OnCPU) > 0 {
		s += fmt.Sprintf("; %d on the CPU: %s", len(p.OnCPU), p.OnCPU[0])
		if len(p.OnCPU) > 1 {
			s += fmt.Sprintf(" and %d more", len(p.OnCPU)-1)
		}
	}
	return s
}

// layerMatrices are the seven products of layer l, by their GGUF names.
func layerMatrices(w *unit05.Layer, l int) []struct {
	name string
	m    *unit05.Matrix
} {
	n := func(s string) string { return fmt.Sprintf("blk.%d.%s.weight", l, s) }
	return []struct {
		name string
		m    *unit05.Matrix
	}{
		{n("attn_q"), &w.Wq}, {n("attn_k"), &w.Wk}, {n("attn_v"), &w.Wv}, {n("attn_output"), &w.Wo},
		{n("ffn_gate"), &w.Gate}, {n("ffn_up"), &w.Up}, {n("ffn_down"), &w.Down},
	}
}

// backend is what offload needs of a device: Device on Linux, a fake in
// the tests.
type backend interface {
	Name() string
	// upload returns m on the device and its bytes there.
	upload(m unit05.Matrix) (unit05.Matrix, int, error)
	// newStore returns the store of layers first … layers−1 on the device,
	// cpu keeping the others, and its bytes there.
	newStore(cpu unit05.KVStore, first, layers, maxSeq, kvDim int, half bool) (unit05.KVStore, int64, error)
}

// offload is Offload on any backend.
func offload(d backend, m *unit05.Model, n int, half bool, cpuStore func(layers int) (unit05.KVStore, error)) (Plan, error) {
	c := m.Config
	p := Plan{Device: d.Name(), First: FirstLayer(c.Layers, n), Layers: c.Layers}
	for l := p.First; l < c.Layers; l++ {
		w := &m.Weights.Layers[l]
		if w.MoE != nil {
			p.OnCPU = append(p.OnCPU, fmt.Sprintf("blk.%d's feed-forward (a mixture of experts)", l))
		}
		for _, lm := range layerMatrices(w, l) {
			if *lm.m == nil {
				continue // a mixture of experts' layer has no Gate, Up, Down
			}
			if kind, why := Kind(*lm.m); kind == "" {
				p.OnCPU = append(p.OnCPU, lm.name+": "+why)
				continue
			}
			dm, bytes, err := d.upload(*lm.m)
			if err != nil {
				return p, fmt.Errorf("%s: %w", lm.name, err)
			}
			*lm.m = dm
			p.Matrices++
			p.Bytes += int64(bytes)
		}
	}
	if p.First == c.Layers {
		return p, nil
	}
	if ok, why := AttentionOnDevice(c); !ok {
		p.AttentionOnHost = why
		return p, nil
	}
	var cpu unit05.KVStore
	if p.First > 0 {
		var err error
		if cpu, err = cpuStore(p.First); err != nil {
			return p, err
		}
	}
	s, bytes, err := d.newStore(cpu, p.First, c.Layers, c.MaxSeq, c.KVDim(), half)
	if err != nil {
		return p, err
	}
	m.Store = s
	p.Attention, p.CacheBytes, p.CacheType = true, bytes, KindF32
	if half {
		p.CacheType = KindF16
	}
	return p, nil
}
