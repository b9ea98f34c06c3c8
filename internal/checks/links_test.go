package checks

import (
	"strings"
	"testing"
	"testing/fstest"
)

// repoFiles is the tree the link tests resolve against.
var repoFiles = map[string]bool{
	"README.md":                 true,
	"AGENTS.md":                 true,
	"LICENSE":                   true,
	"docs/README.md":            true,
	"docs/unit00.md":            true,
	"docs/unit03.md":            true,
	"docs/engine.md":            true,
	"ci/tokref/README.md":       true,
	"unit04/testdata/NOTICE.md": true,
	"unit03/gemm.go":            true,
}

// repoLines gives unit03/gemm.go 40 lines of code but for line 20, a
// comment, line 21, blank, and line 22, a closing brace; the others none
// known.
func repoLines(p string) []string {
	if p != "unit03/gemm.go" {
		return nil
	}
	lines := make([]string, 40)
	for i := range lines {
		lines[i] = "\tx := 1\n"
	}
	lines[19], lines[20], lines[21] = "\t// a comment\n", "\n", "\t}\n"
	return lines
}

func TestFileLinks(t *testing.T) {
	tests := []struct {
		name string
		md   string // the file the text is in
		text string
		want []string // the problems, each as a prefix ("md:line: ...")
	}{
		{"link from the root", "README.md", "See [the unit](docs/unit03.md).", nil},
		{"link from a folder", "docs/README.md", "| 03 | [GEMM](unit03.md) |", nil},
		{"link up a folder", "docs/unit03.md", "the [README](../README.md) and [code](../unit03/gemm.go#L10)", nil},
		{"link to a folder", "README.md", "[solutions](unit03/)", nil},
		{"link from the root of a forge", "docs/unit03.md", "[license](/LICENSE)", nil},
		{"link with a title", "README.md", `[x](docs/engine.md "the engine")`, nil},
		{"image", "docs/unit03.md", "![plot](plot.svg)", []string{"docs/unit03.md:1: link to plot.svg"}},
		{"URL and anchor", "README.md", "[go](https://go.dev/doc/README.md), [below](#quick-start), [mail](mailto:a@b.c)", nil},
		{"missing link", "README.md", "line one\n[design](PLAN.md)", []string{"README.md:2: link to PLAN.md: no such file"}},
		{"link resolved from the wrong folder", "docs/README.md", "[x](docs/unit03.md)", []string{"docs/README.md:1: link to docs/unit03.md: no such file"}},
		{"link out of the repository", "README.md", "[d](../elsewhere/PLAN.md)", []string{"README.md:1: link to ../elsewhere/PLAN.md: it points outside"}},
		{"reference definition", "README.md", "[d]: docs/unit09.md", []string{"README.md:1: link to docs/unit09.md: no such file"}},
		{"brackets that start a paragraph's line", "README.md", "stops\n[\"wor\"]: after \"hello w\"", nil},
		{"definitions after a blank line", "README.md", "text\n\n[a]: docs/unit00.md\n[b]: nowhere.md", []string{"README.md:4: link to nowhere.md: no such file"}},
		{"bare citation", "docs/unit00.md", "the oracle's closeness (PLAN.md §3) is", []string{"docs/unit00.md:1: cites PLAN.md: no file of that name"}},
		{"bare citation with a path", "docs/unit03.md", "see `FACTS/gguf.md` §1", []string{"docs/unit03.md:1: cites FACTS/gguf.md: no such file"}},
		{"bare citation outside", "AGENTS.md", "read ../elsewhere/FACTS.md first", []string{"AGENTS.md:1: cites ../elsewhere/FACTS.md: it points outside"}},
		{"bare citations that resolve", "docs/unit03.md", "`docs/unit00.md`, unit00.md, ci/tokref/README.md, its NOTICE.md", nil},
		{"placeholder", "AGENTS.md", "the relevant part of `docs/unitNN.md`", nil},
		{"placeholder with nothing to match", "AGENTS.md", "see `solutions/unitNN.md`", []string{"AGENTS.md:1: cites solutions/unitNN.md: no such file"}},
		{"citation in a code block", "docs/unit00.md", "```\nnext: read docs/unit01.md\n```", []string{"docs/unit00.md:2: cites docs/unit01.md"}},
		{"brackets in code are not links", "docs/unit03.md", "```go\nf := fs[i](x.md)\n```\nand `a[0](b)`", []string{"docs/unit03.md:2: cites x.md"}},
		{"URL path ending in .md", "README.md", "https://github.com/ggml-org/ggml/blob/master/docs/gguf.md", nil},
		{"longer names", "README.md", "a.mdx and sum.md5", nil},
		{"line anchors within the file", "docs/unit03.md", "[a](../unit03/gemm.go#L1), [b](../unit03/gemm.go#L40), [c](../unit03/gemm.go#L12-L40), [d](../unit03/gemm.go#Lfoo)", nil},
		{"line anchor past the end", "docs/unit03.md", "[MatMul](../unit03/gemm.go#L41)", []string{"docs/unit03.md:1: link to ../unit03/gemm.go#L41: line anchor #L41 is past the end of unit03/gemm.go, which has 40 lines"}},
		{"line range past the end", "docs/unit03.md", "[MatMul](../unit03/gemm.go#L30-L45)", []string{"docs/unit03.md:1: link to ../unit03/gemm.go#L30-L45: line anchor #L30-L45 is past the end"}},
		{"line anchor that is no line", "docs/unit03.md", "[x](../unit03/gemm.go#L0), [y](../unit03/gemm.go#L9-L3)", []string{"docs/unit03.md:1: link to ../unit03/gemm.go#L0: line anchor #L0 is not", "docs/unit03.md:1: link to ../unit03/gemm.go#L9-L3: line anchor #L9-L3 is not"}},
		{"line anchor, file of unknown length", "README.md", "[x](docs/engine.md#L9999)", nil},
		{"line anchor on a comment, a blank line, a brace", "docs/unit03.md", "[x](../unit03/gemm.go#L20), [y](../unit03/gemm.go#L21), [z](../unit03/gemm.go#L22), [r](../unit03/gemm.go#L19-L22)", []string{
			`docs/unit03.md:1: link to ../unit03/gemm.go#L20: line anchor #L20 lands on "// a comment", not on code`,
			`docs/unit03.md:1: link to ../unit03/gemm.go#L21: line anchor #L21 lands on "", not on code`,
			`docs/unit03.md:1: link to ../unit03/gemm.go#L22: line anchor #L22 lands on "}", not on code`,
		}},
		{"two problems on a line", "README.md", "PLAN.md and [r](FACTS.md)", []string{"README.md:1: link to FACTS.md", "README.md:1: cites PLAN.md"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fileLinks(tc.md, tc.text, repoFiles, repoLines)
			if len(got) != len(tc.want) {
				t.Fatalf("fileLinks(%s, %q) reported %d problems, want %d:\n got %q\nwant %q", tc.md, tc.text, len(got), len(tc.want), got, tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("fileLinks(%s, %q) problem %d = %q, want it to begin %q", tc.md, tc.text, i, got[i], w)
				}
			}
		})
	}
}

func TestCheckLinksWalk(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md":                 {Data: []byte("[docs](docs/README.md), [ours](bin/llm)\n")},
		"docs/README.md":            {Data: []byte("[engine](engine.md)\n")},
		"ci/x/README.md":            {Data: []byte("see ../../../PLAN.md\n")},
		"bin/llm":                   {Data: []byte("a build output, not in the repository")},
		"bin/notes.md":              {Data: []byte("[not checked](nowhere.md)")},
		".git/HEAD.md":              {Data: []byte("[not checked](nowhere.md)")},
		"unit04/testdata/NOTICE.md": {Data: []byte("see its NOTICE.md")},
		"unit03/gemm.go":            {Data: []byte("package unit03\n\nfunc MatMul() {}")},
		"docs/unit03.md":            {Data: []byte("[MatMul](../unit03/gemm.go#L3), [past it](../unit03/gemm.go#L4)\n")},
	}
	want := []string{
		"README.md:1: link to bin/llm: no such file in the repository",
		"ci/x/README.md:1: cites ../../../PLAN.md: it points outside the repository",
		"docs/README.md:1: link to engine.md: no such file in the repository",
		"docs/unit03.md:1: link to ../unit03/gemm.go#L4: line anchor #L4 is past the end of unit03/gemm.go, which has 3 lines",
	}
	got := checkLinks(fsys)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("checkLinks:\n got %q\nwant %q", got, want)
	}
}
