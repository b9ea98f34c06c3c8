package patch

import (
	"bytes"
	"strings"
	"testing"
)

// fuzzSeeds are diffs covering the parser's paths, for both fuzz tests.
var fuzzSeeds = []string{
	viewDiff,
	preamble + viewDiff,
	gitDiff,
	"diff -ru a/f b/f\n--- a/f\t2026-11-21 22:03:16 +0000\n+++ b/f\t2026-11-21 22:03:16 +0000\n@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\nOnly in a: only\n",
	"--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n b\n-c\n\\ No newline at end of file\n+C\n\\ No newline at end of file\n",
	"--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\\ No newline at end of file\n",
	"--- u0\n+++ u1\n@@ -3,0 +4 @@\n+new\n@@ -7 +8,0 @@\n-7\n",
	"--- x\n+++ x\n@@ -1,5 +1,5 @@\n a\n-b\n",                  // truncated hunk
	"--- x\n+++ x\n@@ -99999999999999999999,1 +1 @@\n-a\n+b\n", // huge number
	"--- x\n+++ x\n@@ -1,-1 +1 @@\n-a\n+b\n",                   // bad number
	"--- x\n+++ x\n@@ -0,1 +1 @@\n-a\n+b\n",                    // line 0
	"",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, diff []byte) {
		preamble, files, err := Parse(diff)
		if err != nil {
			if preamble != "" || files != nil {
				t.Errorf("Parse returned results with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "patch: ") {
				t.Errorf("error %q does not start with \"patch: \"", err)
			}
			return
		}
		if !bytes.HasPrefix(diff, []byte(preamble)) {
			t.Errorf("preamble %q is not a prefix of the diff", preamble)
		}
		if len(files) == 0 {
			t.Errorf("Parse returned no files and no error")
		}
		for _, f := range files {
			for k := range f.Hunks {
				if err := f.Hunks[k].check(); err != nil {
					t.Errorf("%s: hunk %d: %v", f.name(), k+1, err)
				}
				if k > 0 {
					if err := checkOrder(f.Hunks[k-1], f.Hunks[k]); err != nil {
						t.Errorf("%s: hunk %d: %v", f.name(), k+1, err)
					}
				}
			}
		}
	})
}

func FuzzApply(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), []byte(viewBefore))
		f.Add([]byte(s), []byte("a\nb\nc"))
	}
	f.Add([]byte(viewDiff), []byte(viewShifted))
	f.Fuzz(func(t *testing.T, diff, src []byte) {
		_, files, err := Parse(diff)
		if err != nil {
			return
		}
		for _, f := range files {
			out, err := Apply(src, f)
			if err != nil {
				if out != nil {
					t.Errorf("Apply returned output with error %v", err)
				}
			} else if got, want := countLines(out), countLines(src)+growth(f); got != want {
				t.Errorf("Apply returned %d lines, want %d", got, want)
			}
			checkSelfApply(t, f)
		}
	})
}

// checkSelfApply checks that a file's single hunk, if it starts at the top
// of the file, turns its own old lines into its new lines.
func checkSelfApply(t *testing.T, f File) {
	if len(f.Hunks) != 1 || f.NewPath == devNull {
		return
	}
	h := &f.Hunks[0]
	if h.oldBegin() != 0 {
		return
	}
	oldLines, newLines := h.sides()
	old, want := strings.Join(oldLines, ""), strings.Join(newLines, "")
	got, err := Apply([]byte(old), f)
	if err != nil {
		t.Errorf("applying %s to its own old lines: %v", h.header(), err)
	} else if string(got) != want {
		t.Errorf("applying %s to its own old lines = %q, want %q", h.header(), got, want)
	}
}

// countLines returns the number of lines in b, counting a last line
// without "\n".
func countLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// growth returns how many lines f adds to a file, net.
func growth(f File) int {
	n := 0
	for _, h := range f.Hunks {
		n += h.NewLines - h.OldLines
	}
	return n
}
