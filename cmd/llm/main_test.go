package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// result is what one llm command line did.
type result struct {
	status         int
	stdout, stderr string
}

// llm runs a command line in-process.
func llm(args ...string) result {
	return llmContext(context.Background(), args...)
}

func llmContext(ctx context.Context, args ...string) result {
	var out, errOut bytes.Buffer
	status := runContext(ctx, args, &out, &errOut)
	return result{status, out.String(), errOut.String()}
}

// checkError checks the shape of every error: the status, one line on
// stderr that starts with the command's name and holds want, and nothing
// on stdout.
func checkError(t *testing.T, args []string, r result, status int, want string) {
	t.Helper()
	if r.status != status {
		t.Errorf("llm %q: exit status %d, want %d (stderr %q)", args, r.status, status, r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("llm %q: stderr %q does not contain %q", args, r.stderr, want)
	}
	if strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("llm %q: an error is one line, got %q", args, r.stderr)
	}
	if len(args) > 0 && !strings.HasPrefix(r.stderr, "llm "+args[0]+": ") && !strings.HasPrefix(r.stderr, "llm: ") {
		t.Errorf("llm %q: an error starts with the command's name, got %q", args, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("llm %q: an error must not write to stdout, wrote %q", args, r.stdout)
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		args     []string
		status   int
		stdout   string // a substring the output must contain
		stderr   string
		noStdout bool
	}{
		{args: []string{"version"}, status: 0, stdout: "llm dev ("},
		{args: nil, status: 0, stdout: "llm version"},
		{args: []string{"help"}, status: 0, stdout: "Coming with the course"},
		{args: []string{"help"}, status: 0, stdout: "llm quantize"},
		{args: []string{"help", "run"}, status: 0, stdout: "usage: llm run -m MODEL.gguf -p PROMPT"},
		{args: []string{"help", "run"}, status: 0, stdout: "--top-p P"},
		{args: []string{"help", "gen"}, status: 0, stdout: "Q4_K → Q5_0"},
		{args: []string{"help", "serve"}, status: 0, stdout: "--chat-template NAME"},
		{args: []string{"run", "--help"}, status: 0, stdout: "--reverse-prompt"},
		{args: []string{"bench", "-h"}, status: 0, stdout: "tps_stddev"},
		{args: []string{"help", "nope"}, status: 2, stderr: `unknown command "nope"`, noStdout: true},
		{args: []string{"help", "run", "gen"}, status: 2, stderr: "takes one command", noStdout: true},
		{args: []string{"version", "x"}, status: 2, stderr: "takes no arguments", noStdout: true},
		{args: []string{"serve"}, status: 2, stderr: "no model: give -m MODEL.gguf", noStdout: true},
		{args: []string{"frobnicate"}, status: 2, stderr: `unknown command "frobnicate"`, noStdout: true},
	}
	for _, tc := range tests {
		r := llm(tc.args...)
		if r.status != tc.status {
			t.Errorf("llm %v: exit status %d, want %d", tc.args, r.status, tc.status)
		}
		if !strings.Contains(r.stdout, tc.stdout) {
			t.Errorf("llm %v: stdout %q does not contain %q", tc.args, r.stdout, tc.stdout)
		}
		if !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("llm %v: stderr %q does not contain %q", tc.args, r.stderr, tc.stderr)
		}
		if tc.noStdout && r.stdout != "" {
			t.Errorf("llm %v: an error must not write to stdout, wrote %q", tc.args, r.stdout)
		}
		if tc.status == 2 && strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("llm %v: an error is one line, got %q", tc.args, r.stderr)
		}
	}
}

// TestHelpEveryCommand: every command declares its flags without a clash
// and documents each of them.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands {
		r := llm("help", c.name)
		if r.status != 0 || !strings.HasPrefix(r.stdout, "usage: llm "+c.name) || r.stderr != "" {
			t.Errorf("llm help %s: status %d, stdout %q, stderr %q", c.name, r.status, r.stdout, r.stderr)
		}
		fs := newFlagSet(c.name)
		c.setup(fs)
		for _, d := range fs.defs {
			if d.usage == "" {
				t.Errorf("llm %s: flag %s has no help text", c.name, d.names[0])
			}
		}
	}
}

// TestUsageErrors: a bad command line is one line on stderr, exit status 2,
// nothing on stdout, and never reaches a model (the file named does not
// exist, and no unit is called: these pass on the stubs too).
func TestUsageErrors(t *testing.T) {
	const m = "no-such-model.gguf"
	tests := []struct {
		args []string
		want string
	}{
		// run
		{[]string{"run", "-p", "hi"}, "no model: give -m MODEL.gguf"},
		{[]string{"run", "-m", m}, "no prompt: give -p PROMPT or -f FILE"},
		{[]string{"run", "-m", m, "-p", "hi", "--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{"run", "-m", m, "-p", "hi", "--top-p", "2"}, "llm run: --top-p 2: want a number in [0, 1]"},
		{[]string{"run", "-m", m, "-p", "hi", "--top-p=2"}, "--top-p 2: want a number in [0, 1]"},
		{[]string{"run", "-m", m, "-p", "hi", "--min-p", "-0.1"}, "--min-p -0.1: want a number in [0, 1]"},
		{[]string{"run", "-m", m, "-p", "hi", "-n", "abc"}, "-n abc: want an integer"},
		{[]string{"run", "-m", m, "-p", "hi", "-n", "0"}, "-n 0: want -1"},
		{[]string{"run", "-m", m, "-p", "hi", "--n-predict", "-5"}, "--n-predict -5: want -1"},
		{[]string{"run", "-m", m, "-p", "hi", "--temp", "-1"}, "--temp -1: want a number ≥ 0"},
		{[]string{"run", "-m", m, "-p", "hi", "--temp", "NaN"}, "--temp NaN: want a finite number"},
		{[]string{"run", "-m", m, "-p", "hi", "--top-k", "-3"}, "--top-k -3: want an integer ≥ 0"},
		{[]string{"run", "-m", m, "-p", "hi", "--repeat-penalty", "0"}, "--repeat-penalty 0: want a number > 0"},
		{[]string{"run", "-m", m, "-p", "hi", "--repeat-last-n", "-2"}, "--repeat-last-n -2: want -1 (all)"},
		{[]string{"run", "-m", m, "-p", "hi", "--presence-penalty", "x"}, "--presence-penalty x: want a finite number"},
		{[]string{"run", "-m", m, "-p", "hi", "--seed", "x"}, "--seed x: want -1 (random)"},
		{[]string{"run", "-m", m, "-p", "hi", "-s", "-2"}, "-s -2: want -1 (random)"},
		{[]string{"run", "-m", m, "-p", "hi", "-c", "-5"}, "-c -5: want 0 (the model's context) or a count of tokens ≥ 1"},
		{[]string{"run", "-m", m, "-p", "hi", "-t", "0"}, "-t 0: want an integer in [1, 512]"},
		{[]string{"run", "-m", m, "-p", "hi", "--json=maybe"}, "--json: want true or false"},
		{[]string{"run", "-m", m, "-p", "hi", "stray"}, `unexpected argument "stray"`},
		{[]string{"run", "-m", m, "-p", "hi", "-f", "x.txt"}, "give -p PROMPT or -f FILE, not both"},
		{[]string{"run", "-m", m, "-f", "no-such-prompt.txt"}, "no-such-prompt.txt"},
		{[]string{"run", "-p", "hi", "-m"}, "-m needs a value (FILE)"},
		// eval
		{[]string{"eval", "-m", m}, "nothing to evaluate: give -p PROMPT or --tokens 1,2,3"},
		{[]string{"eval", "-m", m, "-p", "hi", "--tokens", "1"}, "not both"},
		{[]string{"eval", "-m", m, "--tokens", "1,x"}, "--tokens 1,x: want a comma-separated list of integers"},
		{[]string{"eval", "-m", m, "--tokens", "1,-2"}, "want an integer ≥ 0"},
		{[]string{"eval", "-m", m, "-p", "hi", "--top", "0"}, "--top 0: want an integer ≥ 1"},
		// tokenize, detokenize
		{[]string{"tokenize", "-m", m}, "no text: llm tokenize -m MODEL.gguf TEXT"},
		{[]string{"tokenize", "-m", m, "a", "b"}, "give the text as one argument (quote it), got 2"},
		{[]string{"tokenize", "-m", m, "-p", "a", "b"}, "not both"},
		{[]string{"tokenize", "hello"}, "no model"},
		{[]string{"detokenize", "-m", m}, "no token ids"},
		{[]string{"detokenize", "-m", m, "1,abc"}, `"abc" is not a token id`},
		{[]string{"detokenize", "-m", m, "-1"}, `"-1" is not a token id`},
		// inspect
		{[]string{"inspect"}, "no file: llm inspect MODEL.gguf"},
		{[]string{"inspect", "a.gguf", "b.gguf"}, "one file at a time"},
		{[]string{"inspect", "-m", "a.gguf", "b.gguf"}, "not both"},
		// gen
		{[]string{"gen", "--shape", "tiny"}, "no output: give -o FILE"},
		{[]string{"gen", "--type", "q3", "-o", "x.gguf"}, "--type q3: want one of f32, f16, q8_0, q4_0, q4_k_m"},
		{[]string{"gen", "--shape", "huge", "-o", "x.gguf"}, "--shape huge: want one of tiny, tinyllama-1.1b, llama-3.2-1b, qwen2.5-0.5b"},
		{[]string{"gen", "--vocab", "bert", "-o", "x.gguf"}, "--vocab bert: want one of gpt2, spm"},
		{[]string{"gen", "--seed", "-1", "-o", "x.gguf"}, "--seed -1: want an integer ≥ 0"},
		{[]string{"gen", "-o", "no-such-dir/x.gguf"}, "directory no-such-dir does not exist"},
		{[]string{"gen", "-o", "."}, ". is a directory"},
		{[]string{"gen", "-o", "x.gguf", "extra"}, `unexpected argument "extra"`},
		// quantize
		{[]string{"quantize", "in.gguf", "out.gguf"}, "want IN.gguf OUT.gguf TYPE, got 2 arguments"},
		{[]string{"quantize", "in.gguf", "out.gguf", "q3"}, `type "q3": want one of f32, f16, q8_0, q4_0, q4_k_m`},
		{[]string{"quantize", "-t", "0", "in.gguf", "out.gguf", "q8_0"}, "-t 0: want an integer in [1, 512]"},
		// bench
		{[]string{"bench", "-m", m, "-p", "0", "-n", "0"}, "nothing to measure"},
		{[]string{"bench", "-m", m, "-t", "1,0"}, "-t 1,0: want an integer in [1, 512]"},
		{[]string{"bench", "-m", m, "-t", "a"}, "-t a: want a comma-separated list of integers"},
		{[]string{"bench", "-m", m, "-r", "0"}, "-r 0: want an integer ≥ 1"},
		{[]string{"bench", "-p", "8"}, "no model"},
	}
	for _, tc := range tests {
		checkError(t, tc.args, llm(tc.args...), 2, tc.want)
	}
}

// TestGenWithoutRepository: outside the repository, gen cannot find its
// vocabularies and says how to fix that, in one line.
func TestGenWithoutRepository(t *testing.T) {
	t.Chdir(t.TempDir())
	args := []string{"gen", "-o", "x.gguf"}
	checkError(t, args, llm(args...), 2, "cannot find the gpt2 vocabulary, unit04/testdata/ggml-vocab-gpt-2.gguf of the Forge repository: run llm inside the repository or give --vocab-file FILE")
}
