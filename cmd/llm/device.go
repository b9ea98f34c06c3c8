package main

import (
	"fmt"

	"github.com/llmforge/forge/internal/gpu"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit08"
)

// deviceOptions are --device and -ngl (--n-gpu-layers), llama.cpp's
// spelling of the layers to offload.
type deviceOptions struct {
	device string // "cpu" or "cuda"; "" until resolve
	layers int    // -ngl; layersAll: every layer
	flag   string // the flag that chose the device, for messages: "--device cuda" or "-ngl N"
}

// layersAll is the -ngl of every layer: what --device cuda offloads
// without -ngl.
const layersAll = -1

// deviceFlags declares --device and -ngl.
func deviceFlags(fs *flagSet, o *deviceOptions) {
	o.layers = layersAll
	fs.choice(&o.device, "device", "DEV", "where the layers run: cpu, or cuda (an NVIDIA GPU, through its driver) (default cpu)", []string{"cpu", "cuda"})
	fs.integer(&o.layers, "ngl,n-gpu-layers", "N", "the layers to offload with --device cuda, the last N (default, or more than the model has: all); -ngl N > 0 alone means --device cuda", atLeast(0))
}

// resolve settles the device from the flags given, as llama.cpp reads
// -ngl: -ngl N > 0 without --device offloads to the GPU; with --device cpu
// it is a usage error.
func (o *deviceOptions) resolve(given func(string) bool) error {
	ngl := given("ngl")
	switch {
	case o.device == "" && ngl && o.layers > 0:
		o.device, o.flag = "cuda", fmt.Sprintf("-ngl %d", o.layers)
	case o.device == "":
		o.device = "cpu"
	case o.device == "cuda":
		o.flag = "--device cuda"
	case o.device == "cpu" && ngl && o.layers > 0:
		return usagef("-ngl %d: --device cpu runs every layer on the CPU (give --device cuda to offload layers)", o.layers)
	}
	return nil
}

// load is loadModel on the device of the flags: with --device cuda the
// driver and device are checked first, before the model is read (an error
// names the flag), and after loading the chosen layers are offloaded, with
// a line on stderr saying what went to the device and what stayed.
func (o *deviceOptions) load(e *env, path string, ctx, threads int, flag string, kv cacheTypes) (*model, error) {
	if err := o.resolve(e.given); err != nil {
		return nil, err
	}
	if o.device != "cuda" {
		return loadModel(e, path, ctx, threads, flag, kv)
	}
	d, err := gpu.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot run: %v", o.flag, err)
	}
	m, err := loadModel(e, path, ctx, threads, flag, kv)
	if err != nil {
		d.Close()
		return nil, err
	}
	m.dev = d // closed with the model
	// The device keeps its cache as float32s when both types are f32,
	// otherwise as halves (a q8_0 cache among them: the kernels read f32
	// and f16).
	half := kv.k != unit08.CacheF32 || kv.v != unit08.CacheF32
	cpuStore := func(layers int) (unit05.KVStore, error) {
		f, ok := m.net.Attention.(*unit08.Flash)
		if !ok {
			return nil, fmt.Errorf("the CPU's layers have no flash attention to keep their cache with")
		}
		return unit08.NewStore(f, layers, m.net.Config.MaxSeq, kv.k, kv.v)
	}
	plan, err := gpu.Offload(d, m.net, o.layers, half, cpuStore)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: %v", o.flag, err)
	}
	note := ""
	if plan.Attention && (kv.k == unit08.CacheQ8_0 || kv.v == unit08.CacheQ8_0) {
		note = " (the device keeps the q8_0 cache as f16)"
	}
	fmt.Fprintf(e.stderr, "llm %s: %s%s\n", e.flags.cmd, plan, note)
	return m, nil
}
