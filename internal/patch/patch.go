// Package patch parses unified diffs and applies them to file contents in
// memory.
//
// It understands the output of `diff -u`, `diff -ru` and `git diff`, and it
// is deliberately strict: hunk line counts must agree with the hunk bodies,
// hunks must be in order, and context must match the source exactly (only
// the position may drift). A patch that does not apply cleanly is reported
// with an error naming the file, the hunk and the line, never half-applied.
//
// Only "\n" line endings are supported; a "\r" is an ordinary character.
package patch

import (
	"fmt"
	"strconv"
	"strings"
)

// File is the change a unified diff makes to one file.
type File struct {
	// OldPath and NewPath are the paths as written after "--- " and "+++ ",
	// with git's "a/" and "b/" prefixes removed and any tab-separated
	// timestamp removed. A created file has OldPath "/dev/null", a deleted
	// one NewPath "/dev/null".
	OldPath, NewPath string
	Hunks            []Hunk
}

// Hunk is one "@@ -l,s +l,s @@" section.
type Hunk struct {
	// OldStart and OldLines are the 1-based first line and the line count of
	// the hunk in the old file; NewStart and NewLines the same in the new
	// file. As in diff's output, a hunk with no lines on one side has as
	// its start the line after which it sits (0 for the top of the file).
	OldStart, OldLines int
	NewStart, NewLines int

	// Lines are the body lines, each starting with ' ' (context), '-'
	// (only in the old file) or '+' (only in the new file), without the
	// trailing newline.
	Lines []string

	// OldNoNewline reports that the hunk's last old line (its last ' ' or
	// '-' line) is the old file's last line and has no trailing newline:
	// the diff marked it with "\ No newline at end of file".
	// NewNoNewline is the same for the new file (' ' or '+' lines).
	OldNoNewline, NewNoNewline bool
}

// devNull is the path diff writes for the missing side of a created or
// deleted file.
const devNull = "/dev/null"

// maxNumber bounds the numbers in a hunk header, so that start+count
// cannot overflow an int even on 32-bit platforms.
const maxNumber = 1<<30 - 1

// Parse reads a unified diff as written by `diff -u`, `diff -ru` or
// `git diff` and returns the change it makes to each file, in order.
//
// Free text before the first file (a preamble, such as a description of
// the change) is returned as preamble, verbatim. A file starts at a
// "--- " line directly followed by a "+++ " line, or at a "diff ..." line
// introducing such a pair, or at a "diff --git" line. Between files, git's
// extended header lines ("diff --git", "index ...", "new file mode ...",
// ...), diff -r's "Only in ..." lines and blank lines are skipped; any other
// text is an error, as are binary patches.
//
// Each hunk's body must hold exactly as many lines as its header says. As
// git and GNU patch do, an empty body line is taken as an empty context
// line (editors strip the trailing space), and a "--- " line directly
// followed by a "+++ " line always starts a new file.
//
// On error, Parse returns an empty preamble and no files. A diff without
// any file is an error.
func Parse(diff []byte) (preamble string, files []File, err error) {
	p := newParser(diff)
	start := p.firstFileLine()
	p.i = start
	files, err = p.parseFiles()
	if err != nil {
		return "", nil, err
	}
	return string(diff[:p.offset(start)]), files, nil
}

// A parser holds the state of one Parse call.
type parser struct {
	lines []string // the diff split at "\n", without the newlines
	i     int      // index in lines of the next line to read
	file  *File    // the file being parsed, if any, for error messages
}

func newParser(diff []byte) *parser {
	lines := strings.Split(string(diff), "\n")
	if lines[len(lines)-1] == "" {
		// The diff ends in a newline (or is empty): no last line follows.
		lines = lines[:len(lines)-1]
	}
	return &parser{lines: lines}
}

// offset returns the byte offset in the diff at which line i starts.
func (p *parser) offset(i int) int {
	n := 0
	for _, l := range p.lines[:i] {
		n += len(l) + 1
	}
	return n
}

// errorf returns an error about line i (0-based) of the diff, naming the
// file being parsed, if any.
func (p *parser) errorf(i int, format string, args ...any) error {
	where := fmt.Sprintf("line %d of the diff", i+1)
	if p.file != nil {
		where += ": " + p.file.name()
	}
	return fmt.Errorf("patch: %s: %s", where, fmt.Sprintf(format, args...))
}

// isFileHeader reports whether lines i and i+1 are a "--- "/"+++ " pair.
func (p *parser) isFileHeader(i int) bool {
	return i+1 < len(p.lines) &&
		strings.HasPrefix(p.lines[i], "--- ") &&
		strings.HasPrefix(p.lines[i+1], "+++ ")
}

// firstFileLine returns the index of the line that starts the first file,
// or len(p.lines) if there is none.
func (p *parser) firstFileLine() int {
	for i, l := range p.lines {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			return i
		case strings.HasPrefix(l, "diff "):
			// diff -r introduces each file with its command line.
			if p.isFileHeader(i + 1) {
				return i
			}
		case p.isFileHeader(i):
			return i
		}
	}
	return len(p.lines)
}

// gitHeaderPrefixes are the starts of git's extended header lines, which
// may follow a "diff --git" line.
var gitHeaderPrefixes = []string{
	"index ", "old mode ", "new mode ", "deleted file mode ", "new file mode ",
	"similarity index ", "dissimilarity index ",
	"rename from ", "rename to ", "copy from ", "copy to ",
}

func isGitHeader(line string) bool {
	for _, prefix := range gitHeaderPrefixes {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

// parseFiles parses the files from line p.i to the end of the diff.
func (p *parser) parseFiles() ([]File, error) {
	var files []File
	inHeader := false // after a "diff ..." line, before its "--- " line
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		switch {
		case p.isFileHeader(p.i):
			f, err := p.parseFile()
			if err != nil {
				return nil, err
			}
			files = append(files, f)
			inHeader = false
		case line == "", strings.HasPrefix(line, "Only in "):
			p.i++
		case strings.HasPrefix(line, "diff "):
			p.file = nil
			inHeader = true
			p.i++
		case inHeader && isGitHeader(line):
			p.i++
		case strings.HasPrefix(line, "Binary files "), line == "GIT binary patch":
			return nil, p.errorf(p.i, "binary patches are not supported")
		default:
			return nil, p.errorf(p.i, "unexpected line %q", truncate(line))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf(`patch: no file changes in the diff (no "--- " and "+++ " lines)`)
	}
	return files, nil
}

// parseFile parses the "--- "/"+++ " pair at line p.i and the hunks that
// follow it.
func (p *parser) parseFile() (File, error) {
	var f File
	p.file = nil
	headerLine := p.i
	oldPath, err := parsePath(p.lines[p.i][len("--- "):])
	if err != nil {
		return File{}, p.errorf(p.i, "%v", err)
	}
	newPath, err := parsePath(p.lines[p.i+1][len("+++ "):])
	if err != nil {
		return File{}, p.errorf(p.i+1, "%v", err)
	}
	if oldPath == devNull && newPath == devNull {
		return File{}, p.errorf(p.i, "both paths are %s", devNull)
	}
	// git writes "a/" and "b/" before the paths, and so does diff -r when
	// run on directories named a and b; neither is part of the path.
	if (oldPath == devNull || strings.HasPrefix(oldPath, "a/")) &&
		(newPath == devNull || strings.HasPrefix(newPath, "b/")) {
		oldPath = strings.TrimPrefix(oldPath, "a/")
		newPath = strings.TrimPrefix(newPath, "b/")
	}
	f.OldPath, f.NewPath = oldPath, newPath
	p.file = &f
	p.i += 2

	for {
		// Blank lines between hunks are harmless: the previous hunk's
		// counts are satisfied, so they cannot belong to its body.
		j := p.i
		for j < len(p.lines) && p.lines[j] == "" {
			j++
		}
		if j == len(p.lines) || !strings.HasPrefix(p.lines[j], "@@") {
			break
		}
		p.i = j
		h, err := p.parseHunk(len(f.Hunks) + 1)
		if err != nil {
			return File{}, err
		}
		if n := len(f.Hunks); n > 0 {
			if err := checkOrder(f.Hunks[n-1], h); err != nil {
				return File{}, p.errorf(j, "hunk %d (%s): %v", n+1, h.header(), err)
			}
		}
		f.Hunks = append(f.Hunks, h)
	}
	if len(f.Hunks) == 0 {
		return File{}, p.errorf(headerLine, "file header is not followed by a hunk")
	}
	return f, nil
}

// parsePath returns the path in the text after "--- " or "+++ ".
func parsePath(s string) (string, error) {
	// diff -u writes a tab and a timestamp after the path.
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	// git quotes paths holding unusual characters, with C-style escapes
	// that Go's syntax covers.
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("malformed quoted path %s", truncate(s))
		}
		s = u
	}
	if s == "" {
		return "", fmt.Errorf("missing path")
	}
	return s, nil
}

// parseHunk parses the hunk whose header is at line p.i; n is its 1-based
// number within the file. It leaves p.i at the line after the body.
func (p *parser) parseHunk(n int) (Hunk, error) {
	headerLine := p.i
	h, err := parseHunkHeader(p.lines[p.i])
	if err != nil {
		return Hunk{}, p.errorf(p.i, "hunk %d: %v", n, err)
	}
	if err := h.checkHeader(); err != nil {
		return Hunk{}, p.errorf(p.i, "hunk %d (%s): %v", n, h.header(), err)
	}
	p.i++

	var nOld, nNew int // numbers of body lines seen so far in the old and new file
	prev := ""         // the previous body line, "" after a marker
	blanks := 0        // number of blank lines just read
	for ; p.i < len(p.lines); p.i++ {
		line := p.lines[p.i]
		if strings.HasPrefix(line, `\`) {
			if err := h.mark(prev); err != nil {
				return Hunk{}, p.errorf(p.i, "hunk %d (%s): %v", n, h.header(), err)
			}
			prev = ""
			continue
		}
		if nOld == h.OldLines && nNew == h.NewLines || p.isFileHeader(p.i) {
			break
		}
		kind := bodyKind(line)
		inOld := kind == ' ' || kind == '-'
		inNew := kind == ' ' || kind == '+'
		if kind == 0 || inOld && nOld == h.OldLines || inNew && nNew == h.NewLines {
			break // not part of the body, or more lines than the header says
		}
		if inOld && h.OldNoNewline || inNew && h.NewNoNewline {
			return Hunk{}, p.errorf(p.i, `hunk %d (%s): line after "\ No newline at end of file" marker`, n, h.header())
		}
		if inOld {
			nOld++
		}
		if inNew {
			nNew++
		}
		if line == "" {
			blanks++
			line = " "
		} else {
			blanks = 0
		}
		h.Lines = append(h.Lines, line)
		prev = line
	}

	moreOld, moreNew := p.countStray(p.i)
	if moreOld == 0 && moreNew == 0 && (nOld < h.OldLines || nNew < h.NewLines) {
		// The body ended early. Trailing blank lines were taken as
		// context, but more likely they just end the diff.
		nOld -= blanks
		nNew -= blanks
	}
	nOld += moreOld
	nNew += moreNew
	if nOld != h.OldLines {
		return Hunk{}, p.errorf(headerLine, "hunk %d (%s): body has %d old lines, header says %d", n, h.header(), nOld, h.OldLines)
	}
	if nNew != h.NewLines {
		return Hunk{}, p.errorf(headerLine, "hunk %d (%s): body has %d new lines, header says %d", n, h.header(), nNew, h.NewLines)
	}
	return h, nil
}

// bodyKind returns the kind of a hunk body line: ' ', '-' or '+', or 0 if
// line cannot be a body line. An empty line is an empty context line.
func bodyKind(line string) byte {
	if line == "" {
		return ' '
	}
	switch line[0] {
	case ' ', '-', '+':
		return line[0]
	}
	return 0
}

// mark records a "\ No newline at end of file" marker following the body
// line prev.
func (h *Hunk) mark(prev string) error {
	if prev == "" {
		return fmt.Errorf(`"\ No newline at end of file" marker does not follow a body line`)
	}
	if len(prev) == 1 {
		// An empty last line without a newline would be no line at all.
		return fmt.Errorf(`"\ No newline at end of file" marker follows an empty line`)
	}
	switch prev[0] {
	case ' ':
		h.OldNoNewline, h.NewNoNewline = true, true
	case '-':
		h.OldNoNewline = true
	case '+':
		h.NewNoNewline = true
	}
	return nil
}

// countStray counts the old and new lines in the body lines starting at
// line i that are beyond a hunk's stated counts, so that the error can say
// how long the body really is. Trailing blank lines are not counted.
func (p *parser) countStray(i int) (nOld, nNew int) {
	blanks := 0
	for ; i < len(p.lines) && !p.isFileHeader(i); i++ {
		line := p.lines[i]
		if strings.HasPrefix(line, `\`) {
			continue
		}
		switch bodyKind(line) {
		case 0:
			return nOld, nNew
		case '-':
			nOld++
		case '+':
			nNew++
		case ' ':
			if line == "" {
				blanks++
				continue
			}
			nOld += blanks + 1
			nNew += blanks + 1
		}
		blanks = 0
	}
	return nOld, nNew
}

// parseHunkHeader parses a "@@ -l,s +l,s @@" line. Either count may be
// omitted, meaning 1, and any text may follow after a space.
func parseHunkHeader(line string) (Hunk, error) {
	bad := fmt.Errorf("malformed hunk header %q", truncate(line))
	rest, ok := strings.CutPrefix(line, "@@ -")
	if !ok {
		return Hunk{}, bad
	}
	oldRange, rest, ok := strings.Cut(rest, " +")
	if !ok {
		return Hunk{}, bad
	}
	newRange, rest, ok := strings.Cut(rest, " @@")
	if !ok || rest != "" && rest[0] != ' ' {
		return Hunk{}, bad
	}
	var h Hunk
	var err error
	if h.OldStart, h.OldLines, err = parseRange(oldRange); err != nil {
		return Hunk{}, fmt.Errorf("%v: %v", bad, err)
	}
	if h.NewStart, h.NewLines, err = parseRange(newRange); err != nil {
		return Hunk{}, fmt.Errorf("%v: %v", bad, err)
	}
	return h, nil
}

// parseRange parses "l,s" or "l" (meaning "l,1").
func parseRange(s string) (start, count int, err error) {
	startText, countText, hasCount := strings.Cut(s, ",")
	if start, err = parseNumber(startText); err != nil {
		return 0, 0, err
	}
	count = 1
	if hasCount {
		if count, err = parseNumber(countText); err != nil {
			return 0, 0, err
		}
	}
	return start, count, nil
}

// parseNumber parses a decimal number of at most maxNumber, without sign.
// (strconv.Atoi would accept signs.)
func parseNumber(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("missing number")
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad number %q", truncate(s))
		}
		d := int(c - '0')
		if n > (maxNumber-d)/10 {
			return 0, fmt.Errorf("number %s is too large", truncate(s))
		}
		n = n*10 + d
	}
	return n, nil
}

// checkHeader reports whether the hunk's numbers make sense.
func (h *Hunk) checkHeader() error {
	for _, n := range []int{h.OldStart, h.OldLines, h.NewStart, h.NewLines} {
		if n < 0 || n > maxNumber {
			return fmt.Errorf("line number or count %d out of range", n)
		}
	}
	if h.OldStart == 0 && h.OldLines != 0 || h.NewStart == 0 && h.NewLines != 0 {
		return fmt.Errorf("a side with lines cannot start at line 0")
	}
	if h.OldLines == 0 && h.NewLines == 0 {
		return fmt.Errorf("empty hunk")
	}
	return nil
}

// check reports whether the hunk is well formed: sensible numbers, and a
// body that agrees with them. Parse only returns hunks that pass; Apply
// checks again because a File may be built by hand.
func (h *Hunk) check() error {
	if err := h.checkHeader(); err != nil {
		return err
	}
	nOld, nNew := 0, 0
	lastOld, lastNew := "", "" // the last old and new lines
	for _, line := range h.Lines {
		switch bodyKind(line) {
		case ' ':
			if line == "" {
				return fmt.Errorf("empty body line")
			}
			nOld++
			nNew++
			lastOld, lastNew = line, line
		case '-':
			nOld++
			lastOld = line
		case '+':
			nNew++
			lastNew = line
		default:
			return fmt.Errorf("body line %q does not start with ' ', '-' or '+'", truncate(line))
		}
	}
	if nOld != h.OldLines {
		return fmt.Errorf("body has %d old lines, header says %d", nOld, h.OldLines)
	}
	if nNew != h.NewLines {
		return fmt.Errorf("body has %d new lines, header says %d", nNew, h.NewLines)
	}
	// An empty last line without a newline would be no line at all.
	if h.OldNoNewline && len(lastOld) < 2 || h.NewNoNewline && len(lastNew) < 2 {
		return fmt.Errorf(`"\ No newline at end of file" marker on a side without lines or on an empty line`)
	}
	return nil
}

// checkOrder reports whether hunk h may follow hunk prev in a file.
func checkOrder(prev, h Hunk) error {
	if prev.OldNoNewline || prev.NewNoNewline {
		return fmt.Errorf(`follows a hunk that ends the file ("\ No newline at end of file")`)
	}
	if h.oldBegin() < prev.oldBegin()+prev.OldLines {
		return fmt.Errorf("overlaps or precedes the previous hunk (%s)", prev.header())
	}
	return nil
}

// oldBegin returns the 0-based index in the old file of the hunk's first
// old line, or, for a hunk without old lines, of the line it goes before.
func (h *Hunk) oldBegin() int {
	if h.OldLines == 0 {
		return h.OldStart
	}
	return h.OldStart - 1
}

// header returns the hunk's header, in canonical form, for messages.
func (h *Hunk) header() string {
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
}

// name returns the file's path for messages: the old path, or the new one
// for a created file.
func (f *File) name() string {
	if f.OldPath == devNull {
		return f.NewPath
	}
	return f.OldPath
}

// truncate shortens s for quoting in an error message.
func truncate(s string) string {
	const max = 80
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
