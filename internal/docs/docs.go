// Package docs reads a unit's course text, docs/unitNN.md: its challenges,
// their seven parts and their graduated hints, and checks the format.
//
// The format, described in docs/CONTRIBUTING.md:
//
//	# Unit 01 — Tensor and memory          (one title line)
//	...introduction...
//	## 1.1 Shapes, storage and tensors     (one section per challenge "## N.M Title")
//	### Goal                               (a capability, not a list of code names)
//	### Background
//	### The Task
//	### Hints                              (hints are <details> blocks, easiest first)
//	### Tests
//	### Reference Solution
//	### Going Further
//	## 1.5 Boss: zero-copy discipline      (the boss, numbered after the last challenge)
//	## Milestone check
package docs

import (
	"fmt"
	"regexp"
	"strings"
)

// Parts are the sections every challenge must have, in this order.
var Parts = []string{"Goal", "Background", "The Task", "Hints", "Tests", "Reference Solution", "Going Further"}

// Doc is a parsed unit text.
type Doc struct {
	Title      string
	Challenges []Challenge
	Boss       string // the boss section's title, "" if missing
	Milestone  bool   // whether a "## Milestone check" section exists
}

// Challenge is one "## N.M Title" section.
type Challenge struct {
	ID    string // "1.3"
	Title string
	Line  int               // line of its heading, 1-based
	Parts []string          // the "### " headings in order
	Body  map[string]string // text of each part
	Lines map[string]int    // line of each part's heading, 1-based
	Hints []Hint
}

// Hint is one <details> block of a challenge's Hints part.
type Hint struct {
	Summary string // the <summary> text
	Body    string // the Markdown inside the block, trimmed
}

var (
	challengeRE = regexp.MustCompile(`^## (\d+\.\d+) (.+)$`)
	bossRE      = regexp.MustCompile(`^## (?:\d+\.\d+ )?Boss\b[:—-]?\s*(.*)$`)
	summaryRE   = regexp.MustCompile(`(?s)<summary>(.*?)</summary>`)
)

// Parse reads a unit text. It does not judge the format; Lint does.
func Parse(text string) Doc {
	var d Doc
	var cur *Challenge
	var part string
	var body strings.Builder
	flush := func() {
		if cur != nil && part != "" {
			cur.Body[part] = strings.TrimSpace(body.String())
		}
		body.Reset()
	}
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence && !strings.HasPrefix(line, "```") {
			body.WriteString(line + "\n")
			continue
		}
		switch {
		case strings.HasPrefix(line, "# ") && d.Title == "":
			d.Title = strings.TrimPrefix(line, "# ")
		case strings.HasPrefix(line, "## "):
			flush()
			part, cur = "", nil
			if m := bossRE.FindStringSubmatch(line); m != nil {
				d.Boss = strings.TrimSpace(m[1])
				if d.Boss == "" {
					d.Boss = "boss"
				}
			} else if m := challengeRE.FindStringSubmatch(line); m != nil {
				d.Challenges = append(d.Challenges, Challenge{ID: m[1], Title: m[2], Line: i + 1, Body: map[string]string{}, Lines: map[string]int{}})
				cur = &d.Challenges[len(d.Challenges)-1]
			} else if strings.HasPrefix(line, "## Milestone") {
				d.Milestone = true
			}
		case strings.HasPrefix(line, "### ") && cur != nil:
			flush()
			part = strings.TrimSpace(strings.TrimPrefix(line, "### "))
			cur.Parts = append(cur.Parts, part)
			cur.Lines[part] = i + 1
		default:
			body.WriteString(line + "\n")
		}
	}
	flush()
	for i := range d.Challenges {
		d.Challenges[i].Hints = parseHints(d.Challenges[i].Body["Hints"])
	}
	return d
}

// parseHints splits a Hints part into its <details> blocks.
func parseHints(text string) []Hint {
	var hints []Hint
	for {
		start := strings.Index(text, "<details>")
		if start < 0 {
			return hints
		}
		end := strings.Index(text[start:], "</details>")
		if end < 0 {
			return hints
		}
		block := text[start+len("<details>") : start+end]
		text = text[start+end+len("</details>"):]
		h := Hint{}
		if m := summaryRE.FindStringSubmatchIndex(block); m != nil {
			h.Summary = strings.TrimSpace(block[m[2]:m[3]])
			block = block[m[1]:]
		}
		h.Body = strings.TrimSpace(block)
		hints = append(hints, h)
	}
}

// Challenge returns the challenge with the given id.
func (d Doc) Challenge(id string) (Challenge, bool) {
	for _, c := range d.Challenges {
		if c.ID == id {
			return c, true
		}
	}
	return Challenge{}, false
}

// Lint returns the format problems of a unit text, one line each, prefixed
// with name (the file's name). unit is the unit number the challenge ids must
// start with.
func Lint(name string, unit int, d Doc) []string {
	var probs []string
	add := func(line int, format string, args ...any) {
		probs = append(probs, fmt.Sprintf("%s:%d: %s", name, line, fmt.Sprintf(format, args...)))
	}
	if d.Title == "" {
		add(1, "no title line (# Unit NN — Topic)")
	}
	if len(d.Challenges) == 0 {
		add(1, "no challenge sections (## %d.1 Title)", unit)
	}
	for i, c := range d.Challenges {
		if want := fmt.Sprintf("%d.%d", unit, i+1); c.ID != want {
			add(c.Line, "challenge %s out of sequence: want %s", c.ID, want)
		}
		if !sameParts(c.Parts) {
			add(c.Line, "challenge %s has parts %q; want exactly %q in that order", c.ID, c.Parts, Parts)
		}
		for _, p := range Parts {
			if _, ok := c.Body[p]; ok && c.Body[p] == "" {
				add(c.Line, "challenge %s: part %q is empty", c.ID, p)
			}
		}
		if len(c.Hints) == 0 {
			add(c.Line, "challenge %s: Hints has no <details><summary>…</summary>…</details> block", c.ID)
		}
		for j, h := range c.Hints {
			if h.Summary == "" || h.Body == "" {
				add(c.Line, "challenge %s: hint %d needs a <summary> and a body", c.ID, j+1)
			}
		}
		if prob := goalProblem(c.Body["Goal"]); prob != "" {
			line := c.Lines["Goal"]
			if line == 0 {
				line = c.Line
			}
			add(line, "challenge %s: Goal %s; a Goal states what the engine or the learner gains, as a capability, "+
				"and The Task lists the API to write", c.ID, prob)
		}
	}
	if d.Boss == "" {
		add(1, "no boss section (## Boss: title)")
	}
	if !d.Milestone {
		add(1, "no milestone section (## Milestone check)")
	}
	return probs
}

// A Goal says what the engine or the learner can do afterwards; the names of
// the code to write belong in The Task. Two patterns betray a Goal that is an
// API list instead: an opening instruction to write some named code ("Write
// `Close` and ..."), and a string of code names.
var (
	apiVerbRE = regexp.MustCompile(`^(Write|Implement|Add)\b`)
	codeRE    = regexp.MustCompile("`([^`\n]+)`")
	// identRE matches a code span that names Go code: Close, Report.OK,
	// Len(), (*Weights).Check. It leaves out operators, strings and paths.
	identRE = regexp.MustCompile(`^(\(\*[A-Za-z_]\w*\)\.)?[A-Za-z_]\w*(\.[A-Za-z_]\w*)*(\(\))?$`)
)

// maxGoalIdents is how many code names a Goal may mention in passing.
const maxGoalIdents = 3

// goalProblem says what makes a Goal read as an API list, or "" if nothing does.
func goalProblem(goal string) string {
	if m := apiVerbRE.FindString(goal); m != "" {
		if span := codeRE.FindString(firstSentence(goal)); span != "" {
			return fmt.Sprintf("begins %q and names %s in its first sentence", m, span)
		}
	}
	var idents []string
	for _, m := range codeRE.FindAllStringSubmatch(goal, -1) {
		if identRE.MatchString(m[1]) {
			idents = append(idents, m[0])
		}
	}
	if len(idents) > maxGoalIdents {
		return fmt.Sprintf("names %d code identifiers (%s), more than %d", len(idents), strings.Join(idents, ", "), maxGoalIdents)
	}
	return ""
}

// firstSentence returns text up to the end of its first sentence: a full
// stop followed by white space, or the end of the text.
func firstSentence(text string) string {
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '.' && (text[i+1] == ' ' || text[i+1] == '\n') {
			return text[:i+1]
		}
	}
	return text
}

func sameParts(got []string) bool {
	if len(got) != len(Parts) {
		return false
	}
	for i := range got {
		if got[i] != Parts[i] {
			return false
		}
	}
	return true
}
