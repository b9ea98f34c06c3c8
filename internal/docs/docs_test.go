package docs

import (
	"strings"
	"testing"
)

const good = "# Unit 07 — KV cache\n\nIntro.\n\n## 7.1 Append\n" +
	"### Goal\ng\n### Background\nb\n```\n### not a heading inside a fence\n```\n### The Task\nt\n### Hints\n" +
	"<details><summary>Hint 1: look</summary>\n\nFirst.\n\n</details>\n<details><summary>Hint 2: closer</summary>\n\nSecond.\n\n</details>\n" +
	"### Tests\nx\n### Reference Solution\nr\n### Going Further\nf\n\n" +
	"## 7.2 Boss: never recompute\nText.\n\n## Milestone check\nDone.\n"

func TestParse(t *testing.T) {
	d := Parse(good)
	if d.Title != "Unit 07 — KV cache" || len(d.Challenges) != 1 || d.Boss != "never recompute" || !d.Milestone {
		t.Fatalf("Parse: title %q, %d challenges, boss %q, milestone %v", d.Title, len(d.Challenges), d.Boss, d.Milestone)
	}
	c := d.Challenges[0]
	if c.ID != "7.1" || c.Title != "Append" {
		t.Errorf("challenge %q %q", c.ID, c.Title)
	}
	if !strings.Contains(c.Body["Background"], "### not a heading") {
		t.Errorf("a ### line inside a code fence must stay in the body: %q", c.Body["Background"])
	}
	if len(c.Hints) != 2 || c.Hints[1].Summary != "Hint 2: closer" || c.Hints[1].Body != "Second." {
		t.Errorf("hints %+v", c.Hints)
	}
	if probs := Lint("u.md", 7, d); len(probs) != 0 {
		t.Errorf("Lint of a well-formed text: %v", probs)
	}
}

func TestLint(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"missing part", strings.Replace(good, "### Going Further\nf\n", "", 1), "want exactly"},
		{"parts out of order", strings.Replace(good, "### Goal\ng\n### Background\nb\n", "### Background\nb\n### Goal\ng\n", 1), "want exactly"},
		{"empty part", strings.Replace(good, "### The Task\nt\n", "### The Task\n", 1), `part "The Task" is empty`},
		{"no hints", strings.Replace(strings.Replace(good, "<details><summary>Hint 1: look</summary>\n\nFirst.\n\n</details>\n", "", 1), "<details><summary>Hint 2: closer</summary>\n\nSecond.\n\n</details>\n", "plain text\n", 1), "no <details>"},
		{"wrong number", strings.Replace(good, "## 7.1 Append", "## 7.2 Append", 1), "out of sequence"},
		{"no boss", strings.Replace(good, "## 7.2 Boss: never recompute", "## Epilogue", 1), "no boss section"},
		{"no milestone", strings.Replace(good, "## Milestone check", "## Summary", 1), "no milestone"},
	}
	for _, tc := range tests {
		probs := Lint("u.md", 7, Parse(tc.text))
		if !strings.Contains(strings.Join(probs, "\n"), tc.want) {
			t.Errorf("%s: Lint = %q, want a problem containing %q", tc.name, probs, tc.want)
		}
	}
}

func TestGoalProblem(t *testing.T) {
	tests := []struct {
		name, goal string
		want       string // a substring of the problem, "" for none
	}{
		{"capability", "Decide, for any two float32 results, whether they match a float64 reference closely enough.", ""},
		{"capability naming three", "Run the model through the `Matrix` interface, unit02's `SwiGLU` and `Pool`.", ""},
		{"operators and strings are not names", "Combine tensors with `+`, `−`, `×` and `÷`, for model `\"llama\"` and `<0xXX>`.", ""},
		{"verb without code", "Add, subtract, multiply and divide any two tensors. Then `Binary` does it.", ""},
		{"verb, code in a later sentence", "Write text as bytes and back. The map is `ByteRune`.", ""},
		{"write a name", "Write `Close`, which decides closeness.", `begins "Write" and names ` + "`Close`"},
		{"implement a name", "Implement `Arena` for scratch memory.", `begins "Implement"`},
		{"add a name", "Add `Reset` to the cache.", `begins "Add"`},
		{"verb, words, then a name", "Write the view operations `Reshape` and `Slice`.", `begins "Write"`},
		{"verb, name after a dotted name", "Write `Report.OK`: whether all matched.", "`Report.OK`"},
		{"four names", "Put it together: `NewModel`, `Forward`, `Block` and `Logits`.", "names 4 code identifiers"},
		{"methods and calls count", "Use `(*Weights).Check`, `Len()`, `Config.Validate` and `Embed`.", "names 4 code identifiers"},
	}
	for _, tc := range tests {
		got := goalProblem(tc.goal)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: goalProblem(%q) = %q, want %q", tc.name, tc.goal, got, tc.want)
		}
	}
}

func TestLintGoal(t *testing.T) {
	text := strings.Replace(good, "### Goal\ng\n", "### Goal\nWrite `Append` and `Past`.\n", 1)
	probs := Lint("docs/unit07.md", 7, Parse(text))
	want := `docs/unit07.md:6: challenge 7.1: Goal begins "Write" and names ` + "`Append`"
	if len(probs) != 1 || !strings.HasPrefix(probs[0], want) || !strings.Contains(probs[0], "as a capability") {
		t.Errorf("Lint = %q, want one problem starting %q that asks for a capability", probs, want)
	}
}
