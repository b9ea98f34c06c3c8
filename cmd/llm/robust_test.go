package main

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit10"
)

// TestFlagLimits: numeric flags that size memory or goroutines have
// bounds, checked before any model is read (these pass on the stubs too).
func TestFlagLimits(t *testing.T) {
	const m = "no-such-model.gguf"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "-m", m, "-p", "hi", "-t", "100000"}, "-t 100000: want an integer in [1, 512] (llama.cpp's cap too)"},
		{[]string{"run", "-m", m, "-p", "hi", "-t", "513"}, "-t 513: want an integer in [1, 512]"},
		{[]string{"run", "-m", m, "-p", "hi", "--threads", "-1"}, "--threads -1: want an integer in [1, 512]"},
		{[]string{"eval", "-m", m, "-p", "hi", "-t", "100000"}, "-t 100000: want an integer in [1, 512]"},
		{[]string{"gen", "-t", "100000", "-o", "x.gguf"}, "-t 100000: want an integer in [1, 512]"},
		{[]string{"quantize", "-t", "100000", "in.gguf", "out.gguf", "q8_0"}, "-t 100000: want an integer in [1, 512]"},
		{[]string{"bench", "-m", m, "-t", "1,100000"}, "-t 1,100000: want an integer in [1, 512]"},
		{[]string{"run", "-m", m, "-p", "hi", "-c", "-1"}, "-c -1: want 0 (the model's context) or a count of tokens ≥ 1"},
		{[]string{"run", "-m", m, "-p", "hi", "-c", "99999999999999999999"}, "-c 99999999999999999999: want an integer"},
		{[]string{"bench", "-m", m, "-p", "9223372036854775807"}, "-p 9223372036854775807: want an integer in [0, 2147483647]"},
		{[]string{"bench", "-m", m, "-n", "1,3000000000"}, "-n 1,3000000000: want an integer in [0, 2147483647]"},
		{[]string{"run", "-m", m, "-p", "hi", "-ctk", "q4_0"}, "-ctk q4_0: llama.cpp has this type, llm does not: want f32, f16 or q8_0"},
		{[]string{"eval", "-m", m, "-p", "hi", "--cache-type-v=BF16"}, "--cache-type-v BF16: llama.cpp has this type, llm does not"},
		{[]string{"bench", "-m", m, "-ctv", "f8"}, "-ctv f8: want f32, f16 or q8_0"},
		{[]string{"run", "-m", m, "-p", "hi", "--cache-type-k", ""}, "--cache-type-k : want f32, f16 or q8_0"},
	}
	for _, tc := range tests {
		checkError(t, tc.args, llm(tc.args...), 2, tc.want)
	}
}

// TestContextMemory: a context that cannot fit in memory is refused
// before anything is allocated for it, in one line naming the flag, the
// bytes needed and the bytes available (it used to die with Go's "fatal
// error: out of memory" and a goroutine dump); one longer than the
// model's training is allowed, with a warning.
func TestContextMemory(t *testing.T) {
	path := tinyModel(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "-m", path, "-p", "hi", "-n", "4", "-c", "4000000000"}, []string{"-c 4000000000: a context of 4000000000 tokens needs", "TiB", "available"}},
		{[]string{"run", "-m", path, "-p", "hi", "-c", "9223372036854775807"}, []string{"-c 9223372036854775807: a context of", "bytes", "available"}},
		{[]string{"eval", "-m", path, "--tokens", "1", "-c", "4000000000", "-t", "512"}, []string{"-c 4000000000", "needs", "available"}},
		{[]string{"bench", "-m", path, "-p", "2000000000", "-n", "0"}, []string{"-p/-n/-d: a context of 2000000000 tokens needs", "lower -p/-n/-d"}},
		{[]string{"bench", "-m", path, "-p", "16", "-n", "0", "-d", "0,2000000000"}, []string{"-p/-n/-d: a context of 2000000016 tokens needs", "lower -p/-n/-d"}},
		{[]string{"bench", "-m", path, "-p", "512", "-n", "0", "-d", "2147483647"}, []string{"-p/-n/-d: the longest test needs a context of 2147484159 tokens"}},
	} {
		r := llm(tc.args...)
		checkError(t, tc.args, r, 2, tc.want[0])
		for _, w := range tc.want[1:] {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("llm %q: stderr %q does not contain %q", tc.args, r.stderr, w)
			}
		}
	}
	// The tiny model was trained on 2048 positions: -c 4096 runs, warned.
	r := llm("run", "-m", path, "-p", "hi", "-n", "2", "-c", "4096", "--json")
	if r.status != 0 || !strings.HasPrefix(r.stderr, "llm run: warning: -c 4096 is more than the 2048 tokens the model was trained on") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("llm run -c 4096: status %d, stderr %q; want success and one line of warning", r.status, r.stderr)
	}
	for _, c := range []string{"0", "2048"} {
		if r := llm("run", "-m", path, "-p", "hi", "-n", "2", "-c", c, "--json"); r.status != 0 || r.stderr != "" {
			t.Errorf("llm run -c %s: status %d, stderr %q; want success and no warning", c, r.status, r.stderr)
		}
	}
}

// TestHugeCounts: flags whose large values cost nothing up front run
// (generation stops at the context; the sampler's lists are the
// vocabulary's size at most).
func TestHugeCounts(t *testing.T) {
	path := tinyModel(t)
	for _, extra := range [][]string{
		{"-n", "9223372036854775807", "-c", "8"},
		{"--top-k", "9223372036854775807"},
		{"--repeat-last-n", "9223372036854775807"},
	} {
		args := append([]string{"run", "-m", path, "-p", "hi", "-n", "3", "--json"}, extra...)
		if r := llm(args...); r.status != 0 {
			t.Errorf("llm %q: status %d, stderr %q", args, r.status, r.stderr)
		}
	}
}

// TestBenchThreadList: bench's model is made for the most threads of -t,
// so a later, larger count fits its scratch (-t 1,16 used to panic with
// "scratch arena too small").
func TestBenchThreadList(t *testing.T) {
	path := tinyModel(t)
	args := []string{"bench", "-m", path, "-p", "64", "-n", "0", "-r", "1", "-t", "1,16", "--json"}
	if r := llm(args...); r.status != 0 || strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("llm %q: status %d, stdout %q, stderr %q", args, r.status, r.stdout, r.stderr)
	}
}

// TestPromptFileLimit: -f reads at most 64 MiB, so a file that never ends
// (/dev/zero) is an error, not a process that fills the memory.
func TestPromptFileLimit(t *testing.T) {
	path := tinyModel(t)
	big := filepath.Join(t.TempDir(), "big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxPromptBytes + 1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	f.Close()
	files := []string{big}
	if _, err := os.Stat("/dev/zero"); err == nil {
		files = append(files, "/dev/zero")
	}
	for _, file := range files {
		args := []string{"run", "-m", path, "-f", file}
		checkError(t, args, llm(args...), 2, "-f "+file+": more than 64.00 MiB, too long for a prompt")
	}
}

// TestLoadAbsurdContext: the library call llm makes refuses a context no
// process could address with an error, whatever the caller asks (llm's
// own check comes first; this is the net under it).
func TestLoadAbsurdContext(t *testing.T) {
	path := tinyModel(t)
	for _, n := range []int{1 << 40, math.MaxInt} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("unit10.Load(%d positions) panicked: %v", n, p)
				}
			}()
			m, err := unit10.Load(path, n, nil)
			if m != nil {
				m.Close()
			}
			if !errors.Is(err, unit00.ErrInvalid) || !strings.Contains(err.Error(), "MaxSeq") {
				t.Errorf("unit10.Load(%d positions): error %v, want one wrapping unit00.ErrInvalid about MaxSeq", n, err)
			}
		}()
	}
}
