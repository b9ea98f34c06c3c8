package patch

import (
	"reflect"
	"strings"
	"testing"
)

// viewBefore and viewAfter are a small Go file and a mutant of it;
// viewDiff is the output of
//
//	diff -u --label solutions/unit01/view.go --label solutions/unit01/view.go before.go after.go
const (
	viewBefore = `package view

import "strings"

// Window is a view of lines [Start, Start+Height) of a text.
type Window struct {
	Start, Height int
}

// Visible returns the lines of text inside the window.
func (w Window) Visible(text string) []string {
	lines := strings.Split(text, "\n")
	end := w.Start + w.Height
	if end > len(lines) {
		end = len(lines)
	}
	return lines[w.Start:end]
}

// Scroll moves the window by n lines, staying inside [0, total).
func (w Window) Scroll(n, total int) Window {
	w.Start += n
	if w.Start < 0 {
		w.Start = 0
	}
	if w.Start > total-1 {
		w.Start = total - 1
	}
	return w
}
`

	viewAfter = `package view

import "strings"

// Window is a view of lines [Start, Start+Height) of a text.
type Window struct {
	Start, Height int
}

// Visible returns the lines of text inside the window.
func (w Window) Visible(text string) []string {
	lines := strings.Split(text, "\n")
	end := w.Start + w.Start + w.Height
	if end > len(lines) {
		end = len(lines)
	}
	return lines[w.Start:end]
}

// Scroll moves the window by n lines, staying inside [0, total).
func (w Window) Scroll(n, total int) Window {
	w.Start += n
	if w.Start < 0 {
		w.Start = 0
	}
	if w.Start >= total {
		w.Start = total - 1
	}
	return w
}
`

	viewDiff = `--- solutions/unit01/view.go
+++ solutions/unit01/view.go
@@ -10,7 +10,7 @@
 // Visible returns the lines of text inside the window.
 func (w Window) Visible(text string) []string {
 	lines := strings.Split(text, "\n")
-	end := w.Start + w.Height
+	end := w.Start + w.Start + w.Height
 	if end > len(lines) {
 		end = len(lines)
 	}
@@ -23,7 +23,7 @@
 	if w.Start < 0 {
 		w.Start = 0
 	}
-	if w.Start > total-1 {
+	if w.Start >= total {
 		w.Start = total - 1
 	}
 	return w
`
)

// viewShifted is viewBefore with three lines inserted above both hunks;
// viewShiftedAfter is viewAfter with the same lines.
var (
	viewShifted      = strings.Replace(viewBefore, "import", extraLines+"import", 1)
	viewShiftedAfter = strings.Replace(viewAfter, "import", extraLines+"import", 1)
)

const extraLines = "// Package view shows part of a text.\n//\n// It is a test file.\n"

// gitDiff is the output of `git diff` for a change to two files and the
// creation of a third.
const gitDiff = `diff --git a/solutions/unit01/a.go b/solutions/unit01/a.go
index b7e606c..0280bc9 100644
--- a/solutions/unit01/a.go
+++ b/solutions/unit01/a.go
@@ -1,3 +1,3 @@
 package a
 
-func A() int { return 1 }
+func A() int { return 2 }
diff --git a/solutions/unit01/b.txt b/solutions/unit01/b.txt
index 814f4a4..99b356d 100644
--- a/solutions/unit01/b.txt
+++ b/solutions/unit01/b.txt
@@ -1,2 +1,2 @@
 one
-two
+2
diff --git a/solutions/unit01/c.go b/solutions/unit01/c.go
new file mode 100644
index 0000000..f251625
--- /dev/null
+++ b/solutions/unit01/c.go
@@ -0,0 +1,3 @@
+package a
+
+var C = 3
`

// A preamble as a mutant's patch might start with. It holds lines that
// look like diff lines but do not start a file.
const preamble = `Mutant: offset-added-twice

The window start is added twice, so every view past the top is wrong.
--- not a file header, since no "+++ " line follows
-- Forge

`

func TestParse(t *testing.T) {
	tests := []struct {
		name         string
		diff         string
		wantPreamble string
		want         []File
	}{
		{
			name: "diff -u, two hunks",
			diff: viewDiff,
			want: []File{{
				OldPath: "solutions/unit01/view.go",
				NewPath: "solutions/unit01/view.go",
				Hunks: []Hunk{
					{OldStart: 10, OldLines: 7, NewStart: 10, NewLines: 7, Lines: []string{
						" // Visible returns the lines of text inside the window.",
						" func (w Window) Visible(text string) []string {",
						" \tlines := strings.Split(text, \"\\n\")",
						"-\tend := w.Start + w.Height",
						"+\tend := w.Start + w.Start + w.Height",
						" \tif end > len(lines) {",
						" \t\tend = len(lines)",
						" \t}",
					}},
					{OldStart: 23, OldLines: 7, NewStart: 23, NewLines: 7, Lines: []string{
						" \tif w.Start < 0 {",
						" \t\tw.Start = 0",
						" \t}",
						"-\tif w.Start > total-1 {",
						"+\tif w.Start >= total {",
						" \t\tw.Start = total - 1",
						" \t}",
						" \treturn w",
					}},
				},
			}},
		},
		{
			name:         "preamble",
			diff:         preamble + "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n",
			wantPreamble: preamble,
			want: []File{{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}},
			}}},
		},
		{
			name:         "preamble before diff --git",
			diff:         "Subject: a mutant\n\ndiff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
			wantPreamble: "Subject: a mutant\n\n",
			want: []File{{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}},
			}}},
		},
		{
			name: "git diff, several files",
			diff: gitDiff,
			want: []File{
				{OldPath: "solutions/unit01/a.go", NewPath: "solutions/unit01/a.go", Hunks: []Hunk{
					{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3, Lines: []string{
						" package a", " ", "-func A() int { return 1 }", "+func A() int { return 2 }",
					}},
				}},
				{OldPath: "solutions/unit01/b.txt", NewPath: "solutions/unit01/b.txt", Hunks: []Hunk{
					{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Lines: []string{" one", "-two", "+2"}},
				}},
				{OldPath: "/dev/null", NewPath: "solutions/unit01/c.go", Hunks: []Hunk{
					{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 3, Lines: []string{"+package a", "+", "+var C = 3"}},
				}},
			},
		},
		{
			name: "diff -ru, timestamps and Only in",
			diff: "diff -ru a/f b/f\n" +
				"--- a/f\t2026-11-21 22:03:16.339322855 +0000\n" +
				"+++ b/f\t2026-11-21 22:03:16.339322855 +0000\n" +
				"@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n" +
				"Only in a: only\n",
			want: []File{{OldPath: "f", NewPath: "f", Hunks: []Hunk{
				{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3, Lines: []string{" 1", "-2", "+X", " 3"}},
			}}},
		},
		{
			name: "no a/ b/ prefixes to remove",
			diff: "--- a/x\n+++ c/x\n@@ -1 +1 @@\n-a\n+b\n",
			want: []File{{OldPath: "a/x", NewPath: "c/x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}},
			}}},
		},
		{
			name: "quoted path",
			diff: "--- \"a/sp ace\\tx\"\n+++ \"b/sp ace\\tx\"\n@@ -1 +1 @@\n-a\n+b\n",
			want: []File{{OldPath: "sp ace\tx", NewPath: "sp ace\tx", Hunks: []Hunk{
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}},
			}}},
		},
		{
			name: "no newline, old side",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n-c\n\\ No newline at end of file\n+B\n+c\n",
			want: []File{{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3, Lines: []string{" a", "-b", "-c", "+B", "+c"}, OldNoNewline: true},
			}}},
		},
		{
			name: "no newline, new side",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n-c\n+B\n+c\n\\ No newline at end of file\n",
			want: []File{{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3, Lines: []string{" a", "-b", "-c", "+B", "+c"}, NewNoNewline: true},
			}}},
		},
		{
			name: "no newline, both sides, on context",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\\ No newline at end of file\n",
			want: []File{{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3, Lines: []string{" a", "-b", "+B", " c"}, OldNoNewline: true, NewNoNewline: true},
			}}},
		},
		{
			name: "blank body line is empty context",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n\n",
			want: []File{{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3, Lines: []string{" a", " ", "-b", "+B"}},
			}}},
		},
		{
			name: "diff -U0, counts omitted, section heading",
			diff: "--- u0\n+++ u1\n@@ -3,0 +4 @@ func f() {\n+new\n@@ -7 +8,0 @@\n-7\n",
			want: []File{{OldPath: "u0", NewPath: "u1", Hunks: []Hunk{
				{OldStart: 3, OldLines: 0, NewStart: 4, NewLines: 1, Lines: []string{"+new"}},
				{OldStart: 7, OldLines: 1, NewStart: 8, NewLines: 0, Lines: []string{"-7"}},
			}}},
		},
		{
			name: "no final newline in the diff",
			diff: "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b",
			want: []File{{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			preamble, files, err := Parse([]byte(tt.diff))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if preamble != tt.wantPreamble {
				t.Errorf("preamble = %q, want %q", preamble, tt.wantPreamble)
			}
			if !reflect.DeepEqual(files, tt.want) {
				t.Errorf("files =\n%#v\nwant\n%#v", files, tt.want)
			}
		})
	}
}

// Apply tests use diffs with a single file.
func TestApply(t *testing.T) {
	tests := []struct {
		name      string
		diff      string
		src, want string
	}{
		{
			name: "two hunks",
			diff: viewDiff,
			src:  viewBefore,
			want: viewAfter,
		},
		{
			name: "offset",
			diff: viewDiff,
			src:  viewShifted,
			want: viewShiftedAfter,
		},
		{
			name: "offset of lines removed above",
			diff: viewDiff,
			src:  strings.Replace(viewBefore, "import \"strings\"\n\n", "", 1),
			want: strings.Replace(viewAfter, "import \"strings\"\n\n", "", 1),
		},
		{
			// The context of the hunk occurs 2 lines above and 2 lines
			// below line 5; below wins.
			name: "tie goes below",
			diff: "--- x\n+++ x\n@@ -5,2 +5,2 @@\n x\n-y\n+Y\n",
			src:  "a\nb\nx\ny\nc\nd\nx\ny\ne\n",
			want: "a\nb\nx\ny\nc\nd\nx\nY\ne\n",
		},
		{
			// Hunk 1 applies 2 lines down, so hunk 2 is looked for 2
			// lines down first, even though its context also occurs at
			// its stated line.
			name: "offset carries to the next hunk",
			diff: "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+A\n@@ -4 +4 @@\n-x\n+X\n",
			src:  "p\np\na\nx\nq\nx\n",
			want: "p\np\nA\nx\nq\nX\n",
		},
		{
			name: "no newline, old side",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n-c\n\\ No newline at end of file\n+B\n+c\n",
			src:  "a\nb\nc",
			want: "a\nB\nc\n",
		},
		{
			name: "no newline, new side",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n-c\n+B\n+c\n\\ No newline at end of file\n",
			src:  "a\nb\nc\n",
			want: "a\nB\nc",
		},
		{
			name: "no newline, both sides, on context",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\\ No newline at end of file\n",
			src:  "a\nb\nc",
			want: "a\nB\nc",
		},
		{
			name: "no newline, both sides, last line changed",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n b\n-c\n\\ No newline at end of file\n+C\n\\ No newline at end of file\n",
			src:  "a\nb\nc",
			want: "a\nb\nC",
		},
		{
			name: "missing final newline kept when the end is untouched",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n",
			src:  "a\nb\nc\nd",
			want: "A\nb\nc\nd",
		},
		{
			name: "new file",
			diff: "--- /dev/null\n+++ b/c.go\n@@ -0,0 +1,3 @@\n+package a\n+\n+var C = 3\n",
			src:  "",
			want: "package a\n\nvar C = 3\n",
		},
		{
			name: "new file without final newline",
			diff: "--- /dev/null\n+++ c.txt\n@@ -0,0 +1 @@\n+hi\n\\ No newline at end of file\n",
			src:  "",
			want: "hi",
		},
		{
			name: "diff -U0",
			diff: "--- u0\n+++ u1\n@@ -3,0 +4 @@\n+new\n@@ -7 +8,0 @@\n-7\n",
			src:  "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			want: "1\n2\n3\nnew\n4\n5\n6\n8\n9\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, files, err := Parse([]byte(tt.diff))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(files) != 1 {
				t.Fatalf("Parse returned %d files, want 1", len(files))
			}
			got, err := Apply([]byte(tt.src), files[0])
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Apply =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestApplyGitDiff(t *testing.T) {
	srcs := map[string]string{
		"solutions/unit01/a.go":  "package a\n\nfunc A() int { return 1 }\n",
		"solutions/unit01/b.txt": "one\ntwo\n",
		"solutions/unit01/c.go":  "",
	}
	want := map[string]string{
		"solutions/unit01/a.go":  "package a\n\nfunc A() int { return 2 }\n",
		"solutions/unit01/b.txt": "one\n2\n",
		"solutions/unit01/c.go":  "package a\n\nvar C = 3\n",
	}
	_, files, err := Parse([]byte(gitDiff))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range files {
		out, err := Apply([]byte(srcs[f.NewPath]), f)
		if err != nil {
			t.Fatal(err)
		}
		got[f.NewPath] = string(out)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// errorTest is a case whose error must hold every string in want.
type errorTest struct {
	name string
	diff string
	src  string // for Apply
	want []string
}

func checkError(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	if !strings.HasPrefix(err.Error(), "patch: ") {
		t.Errorf("error %q does not start with \"patch: \"", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []errorTest{
		{
			name: "empty",
			diff: "",
			want: []string{"no file changes"},
		},
		{
			name: "only text",
			diff: "just some text\n--- and a dash line\n",
			want: []string{"no file changes"},
		},
		{
			name: "too few old lines",
			diff: "--- x\n+++ x\n@@ -1,3 +1,2 @@\n a\n-b\n@@ -9 +8 @@\n-c\n+d\n",
			want: []string{"line 3 of the diff", "x: hunk 1 (@@ -1,3 +1,2 @@): body has 2 old lines, header says 3"},
		},
		{
			name: "too many old lines",
			diff: "--- x\n+++ x\n@@ -1,2 +1,1 @@\n a\n-b\n-c\n",
			want: []string{"line 3 of the diff", "x: hunk 1 (@@ -1,2 +1,1 @@): body has 3 old lines, header says 2"},
		},
		{
			name: "too many new lines",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n+C\n",
			want: []string{"line 3 of the diff", "hunk 1 (@@ -1,2 +1,2 @@): body has 3 new lines, header says 2"},
		},
		{
			name: "too many context lines",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n c\n\n",
			want: []string{"line 3 of the diff", "body has 3 old lines, header says 2"},
		},
		{
			name: "truncated hunk",
			diff: "--- x\n+++ x\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n\n",
			want: []string{"line 3 of the diff", "body has 3 old lines, header says 5"},
		},
		{
			name: "second hunk of second file",
			diff: gitDiff + "@@ -9,2 +9,2 @@\n-x\n+X\n",
			want: []string{"line 27 of the diff", "solutions/unit01/c.go: hunk 2 (@@ -9,2 +9,2 @@): body has 1 old lines, header says 2"},
		},
		{
			name: "hunk cut by the next file",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n--- y\n+++ y\n@@ -1 +1 @@\n-a\n+b\n",
			want: []string{"line 3 of the diff", "x: hunk 1", "body has 2 old lines, header says 3"},
		},
		{
			// A limitation, documented: the removal of "-- a" next to
			// the addition of "++ b" reads as a file header.
			name: "removed line looking like a file header",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n--- a\n+++ b\n \n",
			want: []string{"line 3 of the diff", "x: hunk 1", "body has 0 old lines, header says 2"},
		},
		{
			name: "huge number",
			diff: "--- x\n+++ x\n@@ -99999999999999999999,1 +1 @@\n-a\n+b\n",
			want: []string{"line 3 of the diff", "x: hunk 1", "malformed hunk header"},
		},
		{
			name: "number too large",
			diff: "--- x\n+++ x\n@@ -2000000000,1 +1 @@\n-a\n+b\n",
			want: []string{"line 3 of the diff", "x: hunk 1", "malformed hunk header"},
		},
		{
			name: "signed number",
			diff: "--- x\n+++ x\n@@ --1,1 +1 @@\n-a\n+b\n",
			want: []string{"line 3 of the diff", "malformed hunk header"},
		},
		{
			name: "lines at line 0",
			diff: "--- x\n+++ x\n@@ -0,1 +1 @@\n-a\n+b\n",
			want: []string{"line 3 of the diff", "x: hunk 1 (@@ -0,1 +1,1 @@): a side with lines cannot start at line 0"},
		},
		{
			name: "empty hunk",
			diff: "--- x\n+++ x\n@@ -1,0 +1,0 @@\n",
			want: []string{"line 3 of the diff", "empty hunk"},
		},
		{
			name: "junk after @@",
			diff: "--- x\n+++ x\n@@ -1 +1 @@x\n-a\n+b\n",
			want: []string{"line 3 of the diff", "malformed hunk header"},
		},
		{
			name: "hunks out of order",
			diff: "--- x\n+++ x\n@@ -10 +10 @@\n-a\n+b\n@@ -2 +2 @@\n-c\n+d\n",
			want: []string{"line 6 of the diff", "x: hunk 2 (@@ -2,1 +2,1 @@): overlaps or precedes the previous hunk (@@ -10,1 +10,1 @@)"},
		},
		{
			name: "hunks overlap",
			diff: "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -3,2 +3,2 @@\n c\n-d\n+D\n",
			want: []string{"line 8 of the diff", "x: hunk 2", "overlaps or precedes"},
		},
		{
			name: "marker first",
			diff: "--- x\n+++ x\n@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n",
			want: []string{"line 4 of the diff", "x: hunk 1", "marker does not follow a body line"},
		},
		{
			name: "two markers",
			diff: "--- x\n+++ x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n\\ No newline at end of file\n+b\n",
			want: []string{"line 6 of the diff", "marker does not follow a body line"},
		},
		{
			name: "marker after empty line",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n \n\\ No newline at end of file\n",
			want: []string{"line 6 of the diff", "x: hunk 1", "marker follows an empty line"},
		},
		{
			name: "line after marker",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n\\ No newline at end of file\n-b\n+c\n",
			want: []string{"line 6 of the diff", "x: hunk 1", "line after"},
		},
		{
			name: "hunk after marker",
			diff: "--- x\n+++ x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n@@ -5 +5 @@\n-c\n+d\n",
			want: []string{"line 7 of the diff", "x: hunk 2", "follows a hunk that ends the file"},
		},
		{
			name: "garbage after hunk",
			diff: "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\nthis is not a diff line\n",
			want: []string{"line 6 of the diff", "x: unexpected line \"this is not a diff line\""},
		},
		{
			name: "file header without hunks",
			diff: "--- x\n+++ x\n--- y\n+++ y\n@@ -1 +1 @@\n-a\n+b\n",
			want: []string{"line 1 of the diff", "x: file header is not followed by a hunk"},
		},
		{
			name: "binary",
			diff: "diff --git a/x b/x\nindex 1..2\nBinary files a/x and b/x differ\n",
			want: []string{"line 3 of the diff", "binary patches are not supported"},
		},
		{
			name: "index line without diff line",
			diff: "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\nindex 1..2\n",
			want: []string{"line 6 of the diff", "unexpected line"},
		},
		{
			name: "both paths /dev/null",
			diff: "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n",
			want: []string{"line 1 of the diff", "both paths are /dev/null"},
		},
		{
			name: "bad quoted path",
			diff: "--- \"x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n",
			want: []string{"line 1 of the diff", "malformed quoted path"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			preamble, files, err := Parse([]byte(tt.diff))
			checkError(t, err, tt.want)
			if preamble != "" || files != nil {
				t.Errorf("Parse returned preamble %q and %d files with its error", preamble, len(files))
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []errorTest{
		{
			name: "context mismatch",
			diff: viewDiff,
			src:  strings.Replace(viewBefore, "\treturn w\n", "\treturn v\n", 1),
			want: []string{
				"solutions/unit01/view.go: hunk 2 (@@ -23,7 +23,7 @@): context does not match at line 23 or anywhere after the previous hunk",
				`first differing line 29: want "\treturn w", have "\treturn v"`,
			},
		},
		{
			name: "removed line mismatch at an offset",
			diff: viewDiff,
			src:  strings.Replace(viewShifted, "w.Start + w.Height", "w.Height + w.Start", 1),
			want: []string{
				"solutions/unit01/view.go: hunk 1 (@@ -10,7 +10,7 @@): context does not match at line 10 or anywhere else in the file",
				`the closest match is at line 13; first differing line 16: want "\tend := w.Start + w.Height", have "\tend := w.Height + w.Start"`,
			},
		},
		{
			name: "beyond the end",
			diff: "--- x\n+++ x\n@@ -8,2 +8,2 @@\n a\n-b\n+B\n",
			src:  "a\nc\n",
			want: []string{"x: hunk 1 (@@ -8,2 +8,2 @@): context does not match at line 3 or anywhere else in the file; the closest match is at line 1; first differing line 2: want \"b\", have \"c\""},
		},
		{
			name: "longer than the source",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n",
			src:  "a\n",
			want: []string{"x: hunk 1 (@@ -1,2 +1,2 @@): context does not match at line 1 or anywhere else in the file; first differing line 2: want \"b\", have end of file"},
		},
		{
			name: "later hunk found only before the previous one",
			diff: "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+A\n@@ -3 +3 @@\n-b\n+B\n",
			src:  "b\nq\nq\na\n",
			want: []string{"x: hunk 2 (@@ -3,1 +3,1 @@): context does not match", "anywhere after the previous hunk"},
		},
		{
			name: "source lacks the final newline the diff shows",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n",
			src:  "a\nb",
			want: []string{"x: hunk 1", `first differing line 2: want "b", have "b" (no newline at end of file)`},
		},
		{
			name: "source has the final newline the diff says is missing",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n",
			src:  "a\nb\n",
			want: []string{"x: hunk 1", `where its "\ No newline at end of file" marker puts it`, `want "b" (no newline at end of file), have "b"`},
		},
		{
			name: "marker, source too short",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n",
			src:  "a\n",
			want: []string{"x: hunk 1", "but its 2 old lines do not fit in the 1 lines left to patch"},
		},
		{
			name: "new side marker, hunk not at the end",
			diff: "--- x\n+++ x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\\ No newline at end of file\n",
			src:  "a\nb\nc\n",
			want: []string{"x: hunk 1", "context does not match at line 2", "marker puts it"},
		},
		{
			name: "insertion without context beyond the end",
			diff: "--- x\n+++ x\n@@ -5,0 +6 @@\n+new\n",
			src:  "a\nb\n",
			want: []string{"x: hunk 1 (@@ -5,0 +6,1 @@): line 6 is outside the lines left to patch (1 to 3)"},
		},
		{
			name: "insertion after a last line without newline",
			diff: "--- x\n+++ x\n@@ -2,0 +3 @@\n+new\n",
			src:  "a\nb",
			want: []string{"x: hunk 1 (@@ -2,0 +3,1 @@): cannot add lines after line 2, which has no newline at end of file"},
		},
		{
			name: "new file exists",
			diff: "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+a\n",
			src:  "a\n",
			want: []string{"x: the diff creates the file, but it is not empty"},
		},
		{
			name: "delete file",
			diff: "--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
			src:  "a\n",
			want: []string{"x: deleting files is not supported"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, files, err := Parse([]byte(tt.diff))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			out, err := Apply([]byte(tt.src), files[0])
			checkError(t, err, tt.want)
			if out != nil {
				t.Errorf("Apply returned %q with its error", out)
			}
		})
	}
}

// Apply checks a File built by hand rather than trusting it.
func TestApplyMalformedFile(t *testing.T) {
	tests := []struct {
		name string
		file File
		want []string
	}{
		{
			name: "no hunks",
			file: File{OldPath: "x", NewPath: "x"},
			want: []string{"x: no hunks"},
		},
		{
			name: "bad body line",
			file: File{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "*b"}},
			}},
			want: []string{"x: hunk 1 (@@ -1,1 +1,1 @@): body line \"*b\" does not start with"},
		},
		{
			name: "empty body line",
			file: File{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{""}},
			}},
			want: []string{"x: hunk 1", "empty body line"},
		},
		{
			name: "counts",
			file: File{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}},
			}},
			want: []string{"x: hunk 1", "body has 1 old lines, header says 2"},
		},
		{
			name: "negative start",
			file: File{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: -5, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}},
			}},
			want: []string{"x: hunk 1", "out of range"},
		},
		{
			name: "marker without lines",
			file: File{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 0, NewStart: 1, NewLines: 1, Lines: []string{"+b"}, OldNoNewline: true},
			}},
			want: []string{"x: hunk 1", "marker on a side without lines"},
		},
		{
			name: "marker on empty line",
			file: File{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+"}, NewNoNewline: true},
			}},
			want: []string{"x: hunk 1", "marker on a side without lines or on an empty line"},
		},
		{
			name: "out of order",
			file: File{OldPath: "x", NewPath: "x", Hunks: []Hunk{
				{OldStart: 3, OldLines: 1, NewStart: 3, NewLines: 1, Lines: []string{"-a", "+b"}},
				{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{"-a", "+b"}},
			}},
			want: []string{"x: hunk 2", "overlaps or precedes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Apply([]byte("a\na\na\n"), tt.file)
			checkError(t, err, tt.want)
		})
	}
}
