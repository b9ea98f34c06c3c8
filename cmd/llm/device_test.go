package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/internal/cuda"
)

// TestDeviceFlags: --device and -ngl as run and bench take them, and the
// device they settle on.
func TestDeviceFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string // "device layers", or the usage error
	}{
		{nil, "cpu -1"},
		{[]string{"--device", "cpu"}, "cpu -1"},
		{[]string{"--device", "cuda"}, "cuda -1"},
		{[]string{"-device=CUDA"}, "cuda -1"},
		{[]string{"--device", "cuda", "-ngl", "10"}, "cuda 10"},
		{[]string{"--device", "cuda", "-ngl", "0"}, "cuda 0"},
		{[]string{"-ngl", "99"}, "cuda 99"}, // llama.cpp's -ngl alone offloads
		{[]string{"--n-gpu-layers=3"}, "cuda 3"},
		{[]string{"-ngl", "0"}, "cpu 0"},
		{[]string{"--device", "cpu", "-ngl", "0"}, "cpu 0"},
		{[]string{"--device", "tpu"}, "--device tpu: want one of cpu, cuda"},
		{[]string{"-ngl", "-3"}, "-ngl -3: want an integer ≥ 0"},
		{[]string{"--n-gpu-layers", "x"}, "--n-gpu-layers x: want an integer"},
		{[]string{"--device"}, "--device needs a value (DEV)"},
		{[]string{"--device", "cpu", "-ngl", "4"}, "-ngl 4: --device cpu runs every layer on the CPU (give --device cuda to offload layers)"},
	}
	for _, tc := range tests {
		fs := newFlagSet("run")
		var o deviceOptions
		deviceFlags(fs, &o)
		err := fs.parse(tc.args)
		if err == nil {
			err = o.resolve(fs.given)
		}
		got := fmt.Sprintf("%s %d", o.device, o.layers)
		if err != nil {
			got = err.Error()
			if ee, ok := err.(*exitError); !ok || ee.status != 2 {
				t.Errorf("%q: error %#v is not a usage error (exit status 2)", tc.args, err)
			}
		}
		if got != tc.want {
			t.Errorf("%q: %s, want %s", tc.args, got, tc.want)
		}
	}
}

// TestDeviceWithoutDriver: where no CUDA driver or device can be used,
// --device cuda (or -ngl N alone) is one line naming the flag and why,
// said before the model is read: the model here does not exist.
func TestDeviceWithoutDriver(t *testing.T) {
	if cuda.Load() == nil {
		t.Skip("a CUDA driver and device are here: the no-driver error cannot be seen")
	}
	missing := t.TempDir() + "/absent.gguf"
	for _, args := range [][]string{
		{"run", "-m", missing, "-p", "hi", "--device", "cuda"},
		{"bench", "-m", missing, "--device", "cuda", "-ngl", "2"},
		{"run", "-m", missing, "-p", "hi", "-ngl", "2"},
	} {
		flag := "--device cuda"
		if args[len(args)-2] == "-ngl" && args[len(args)-3] != "cuda" {
			flag = "-ngl 2"
		}
		checkError(t, args, llm(args...), 1, fmt.Sprintf("llm %s: %s: cannot run: cuda: no usable CUDA driver", args[0], flag))
	}
}

// TestDeviceCPUIsDefault: --device cpu, and -ngl 0, change nothing: the
// same text as without them.
func TestDeviceCPUIsDefault(t *testing.T) {
	path := tinyModel(t)
	base := []string{"run", "-m", path, "-p", "Once upon a time", "-n", "12", "--temp", "0", "--seed", "1", "-t", "2"}
	want := ok(t, base...)
	for _, extra := range [][]string{{"--device", "cpu"}, {"-ngl", "0"}, {"--device", "cpu", "--n-gpu-layers", "0"}} {
		if got := ok(t, append(base, extra...)...); got != want {
			t.Errorf("llm run ... %q:\n%q\nwant (no flag)\n%q", extra, got, want)
		}
	}
}

// A driver error in the middle of a forward pass (internal/gpu panics with
// it) becomes one line; anything else is not taken for one.
func TestDeviceFailure(t *testing.T) {
	driverErr := fmt.Errorf("gpu: a 64×64 q4_0 product of 1 rows: %w", &cuda.Error{Call: "cuLaunchKernel", Result: 700, Text: "an illegal memory access was encountered"})
	msg, ok := deviceFailure(driverErr)
	require.True(t, ok, "a wrapped *cuda.Error")
	require.Equal(t, "the GPU failed: gpu: a 64×64 q4_0 product of 1 rows: cuda: cuLaunchKernel: an illegal memory access was encountered (CUresult 700)", msg)
	for _, r := range []any{errors.New("disk full"), "TODO(5.1): write it", 42} {
		_, ok := deviceFailure(r)
		require.False(t, ok, "%v is not a device failure", r)
	}
}
