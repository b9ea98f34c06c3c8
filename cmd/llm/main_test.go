package main

import (
	"bytes"
	"strings"
	"testing"
)

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
		{args: []string{"help", "run"}, status: 0, stdout: "unit11"},
		{args: []string{"help", "nope"}, status: 2, stderr: `unknown command "nope"`, noStdout: true},
		{args: []string{"version", "x"}, status: 2, stderr: "takes no arguments", noStdout: true},
		{args: []string{"run", "-m", "x.gguf"}, status: 2, stderr: "not built yet", noStdout: true},
		{args: []string{"frobnicate"}, status: 2, stderr: `unknown command "frobnicate"`, noStdout: true},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		status := run(tc.args, &out, &errOut)
		if status != tc.status {
			t.Errorf("llm %v: exit status %d, want %d", tc.args, status, tc.status)
		}
		if !strings.Contains(out.String(), tc.stdout) {
			t.Errorf("llm %v: stdout %q does not contain %q", tc.args, out.String(), tc.stdout)
		}
		if !strings.Contains(errOut.String(), tc.stderr) {
			t.Errorf("llm %v: stderr %q does not contain %q", tc.args, errOut.String(), tc.stderr)
		}
		if tc.noStdout && out.Len() > 0 {
			t.Errorf("llm %v: an error must not write to stdout, wrote %q", tc.args, out.String())
		}
		if tc.status == 2 && strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("llm %v: an error is one line, got %q", tc.args, errOut.String())
		}
	}
}
