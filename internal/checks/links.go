package checks

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/llmforge/forge/internal/workbook"
)

// DocsAndLinks is the docs check of `forge check docs` and `make test`:
// the format of every unit's text (Docs), then every Markdown file's links
// and citations (Links).
func DocsAndLinks(r workbook.Repo) []string {
	return append(Docs(r), Links(r)...)
}

// Links checks that everything a Markdown file of the repository points a
// reader to is in the repository: every relative link [text](path) and every
// bare citation of a Markdown file ("see docs/unit03.md", "its NOTICE.md").
// A learner who clones Forge must be able to follow each of them.
func Links(r workbook.Repo) []string {
	return checkLinks(os.DirFS(r.Root))
}

// skipDirs are folders that are not part of the repository: git's own, and
// the build outputs and local state that .gitignore names.
var skipDirs = map[string]bool{".git": true, "bin": true, ".tools": true, ".forge": true, "node_modules": true}

// checkLinks checks every .md file of fsys, the repository's tree.
func checkLinks(fsys fs.FS) []string {
	files := map[string]bool{}
	var mds []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && skipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		files[p] = true
		if strings.HasSuffix(p, ".md") {
			mds = append(mds, p)
		}
		return nil
	})
	if err != nil {
		return []string{fmt.Sprintf("listing the repository's files: %v", err)}
	}
	sort.Strings(mds)
	var probs []string
	for _, md := range mds {
		text, err := fs.ReadFile(fsys, md)
		if err != nil {
			probs = append(probs, fmt.Sprintf("%s: %v", md, err))
			continue
		}
		probs = append(probs, fileLinks(md, string(text), files, lineReader(fsys))...)
	}
	return probs
}

// lineReader returns a function that returns the lines of a file of fsys,
// each file read once; nil if it cannot be read. A last line without its
// newline counts, as a forge numbers it.
func lineReader(fsys fs.FS) func(p string) []string {
	cache := map[string][]string{}
	return func(p string) []string {
		if lines, ok := cache[p]; ok {
			return lines
		}
		var lines []string
		if data, err := fs.ReadFile(fsys, p); err == nil {
			lines = strings.SplitAfter(string(data), "\n")
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			if lines == nil {
				lines = []string{}
			}
		}
		cache[p] = lines
		return lines
	}
}

var (
	// inlineLinkRE matches [text](target) and ![alt](target); the target
	// ends at a space (before an optional "title") or the closing paren.
	inlineLinkRE = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// refLinkRE matches a reference definition: [label]: target.
	refLinkRE = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	// urlRE matches an absolute URL, whose path may well end in .md.
	urlRE = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://\S+`)
	// citationRE matches a Markdown file's name, with or without folders.
	citationRE = regexp.MustCompile(`[\w./-]*\w\.md`)
	// schemeRE recognises a link target that is not a path in the repo.
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// lineAnchorRE matches a forge's line anchor, #L87 or #L87-L95.
	lineAnchorRE = regexp.MustCompile(`^L(\d+)(?:-L(\d+))?$`)
)

// fileLinks returns the links and citations of the Markdown file md (a
// slash-separated path from the repository's root, holding text) that do
// not resolve to one of files, each as "md:line: what". lines returns a
// file's lines (nil if unknown), for line anchors (#L87); nil checks none.
func fileLinks(md, text string, files map[string]bool, lines func(p string) []string) []string {
	var probs []string
	fenced := false
	canDefine := true // a reference definition cannot interrupt a paragraph
	for i, line := range strings.Split(text, "\n") {
		where := fmt.Sprintf("%s:%d", md, i+1)
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
		}
		// Outside code, the links: inline ones and reference definitions.
		rest := line
		if !fenced {
			var targets []string
			for _, m := range inlineLinkRE.FindAllStringSubmatch(withoutCodeSpans(line), -1) {
				targets = append(targets, m[1])
			}
			m := refLinkRE.FindStringSubmatch(line)
			isDef := m != nil && canDefine
			if isDef {
				targets = append(targets, m[1])
			}
			canDefine = strings.TrimSpace(line) == "" || isDef
			for _, t := range targets {
				if why := linkProblem(md, t, files, lines); why != "" {
					probs = append(probs, fmt.Sprintf("%s: link to %s: %s", where, t, why))
				}
			}
			rest = inlineLinkRE.ReplaceAllString(rest, " ")
			if isDef {
				rest = refLinkRE.ReplaceAllString(rest, " ")
			}
		}
		// Everywhere, code included (a grader's output shown in a block
		// still sends the reader somewhere), bare citations of .md files.
		rest = urlRE.ReplaceAllString(rest, " ")
		for _, loc := range citationRE.FindAllStringIndex(rest, -1) {
			if loc[1] < len(rest) && isPathByte(rest[loc[1]]) {
				continue // part of a longer name: foo.mdx, unit05.md5
			}
			name := rest[loc[0]:loc[1]]
			if why := citationProblem(md, name, files); why != "" {
				probs = append(probs, fmt.Sprintf("%s: cites %s: %s", where, name, why))
			}
		}
	}
	return probs
}

// withoutCodeSpans blanks `code spans`, where brackets are code, not links.
func withoutCodeSpans(line string) string {
	b := []byte(line)
	in := false
	for i, c := range b {
		if c == '`' {
			in = !in
			continue
		}
		if in {
			b[i] = ' '
		}
	}
	return string(b)
}

func isPathByte(c byte) bool {
	return c == '_' || c == '-' || c == '/' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// linkProblem says why the link target t in md does not resolve ("" if it
// does). A target resolves as Markdown does: from md's folder. A line
// anchor (file.go#L87, #L87-L95) must be within the file's length, so that
// a code tour's links cannot point past the end of a file that shrank.
// URLs and links within the page (#section) are not checked.
func linkProblem(md, t string, files map[string]bool, lines func(p string) []string) string {
	if t == "" || strings.HasPrefix(t, "#") || schemeRE.MatchString(t) {
		return ""
	}
	anchor := ""
	if i := strings.IndexAny(t, "#?"); i >= 0 {
		if t[i] == '#' {
			anchor = t[i+1:]
		}
		t = t[:i]
	}
	p, ok := inRepo(path.Dir(md), t)
	switch {
	case !ok:
		return "it points outside the repository"
	case files[p]:
		return lineProblem(p, anchor, lines)
	case isDir(p, files):
		return ""
	}
	return "no such file in the repository"
}

// lineProblem says why the anchor of a link to the file p names a line p
// does not have ("" if it is no line anchor, or fine). A single line of Go
// or assembly must be code, not a blank line, a comment or a lone brace:
// a tour's link that lands there has drifted, its file edited above it.
func lineProblem(p, anchor string, lines func(p string) []string) string {
	m := lineAnchorRE.FindStringSubmatch(anchor)
	if m == nil || lines == nil {
		return ""
	}
	text := lines(p)
	if text == nil {
		return ""
	}
	n := len(text)
	from, _ := strconv.Atoi(m[1])
	to := from
	if m[2] != "" {
		to, _ = strconv.Atoi(m[2])
	}
	switch {
	case from < 1 || to < from:
		return fmt.Sprintf("line anchor #%s is not a range of lines", anchor)
	case to > n:
		return fmt.Sprintf("line anchor #%s is past the end of %s, which has %d lines", anchor, p, n)
	case from == to && (strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".s")) && !isCode(text[from-1]):
		return fmt.Sprintf("line anchor #%s lands on %q, not on code: the file has moved under the link (point it at the line it describes)", anchor, strings.TrimSpace(text[from-1]))
	}
	return ""
}

// isCode reports whether a line of Go or assembly holds code: not blank,
// not only a comment, not only closing braces or parentheses.
func isCode(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && !strings.HasPrefix(t, "//") && strings.Trim(t, "}) ") != ""
}

// citationProblem says why a bare citation name in md does not resolve
// ("" if it does). A name with folders resolves from md's folder or from the
// root; a bare file name ("NOTICE.md": the prose says whose) resolves if
// the repository has a file of that name anywhere. NN stands for a unit's
// two digits, as in docs/unitNN.md.
func citationProblem(md, name string, files map[string]bool) string {
	// match reports whether some file of the repository is p, or a file
	// whose name ends in /p (with base set: whose base name is p).
	match := func(p string, base bool) bool {
		pat := strings.ReplaceAll(p, "NN", "[0-9][0-9]")
		for f := range files {
			if base {
				f = path.Base(f)
			}
			if ok, _ := path.Match(pat, f); ok {
				return true
			}
		}
		return false
	}
	if !strings.Contains(name, "/") {
		if match(name, true) {
			return ""
		}
		return "no file of that name in the repository"
	}
	outside := true
	for _, dir := range []string{path.Dir(md), "."} {
		if p, ok := inRepo(dir, name); ok {
			outside = false
			if match(p, false) {
				return ""
			}
		}
	}
	if outside {
		return "it points outside the repository"
	}
	return "no such file in the repository"
}

// inRepo joins the path t to the folder dir (a leading / means the
// repository's root, as on a forge) and reports whether the result stays
// inside the repository.
func inRepo(dir, t string) (string, bool) {
	if strings.HasPrefix(t, "/") {
		dir = "."
	}
	p := path.Join(dir, t)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// isDir reports whether p is a folder of the repository (a link to a
// folder is fine: a forge renders its README).
func isDir(p string, files map[string]bool) bool {
	if p == "." {
		return true
	}
	for f := range files {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}
