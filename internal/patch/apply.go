package patch

import (
	"fmt"
	"iter"
	"strings"
)

// Apply returns src with every hunk of f applied, in order.
//
// The context and '-' lines of each hunk must match src exactly. Each hunk
// is looked for first at its stated line, moved by the offset at which the
// previous hunk applied, then at the nearest offset below (later in the
// file) or above (nearest first, below before above on a tie), but never
// before the end of the previous hunk: hunks may not overlap.
//
// Lines end in "\n". src's last line keeps its trailing newline, or lack
// of it, unless a hunk changes that line; such a hunk must say whether the
// line ends in a newline on each side ("\ No newline at end of file").
//
// A created file (OldPath "/dev/null") needs an empty src. Deleting files
// is not supported. On error, Apply returns nil: a patch is applied
// completely or not at all.
func Apply(src []byte, f File) ([]byte, error) {
	name := f.name()
	if f.NewPath == devNull {
		return nil, fmt.Errorf("patch: %s: deleting files is not supported", name)
	}
	if f.OldPath == devNull && len(src) > 0 {
		return nil, fmt.Errorf("patch: %s: the diff creates the file, but it is not empty", name)
	}
	if len(f.Hunks) == 0 {
		return nil, fmt.Errorf("patch: %s: no hunks", name)
	}
	for k := range f.Hunks {
		h := &f.Hunks[k]
		err := h.check()
		if err == nil && k > 0 {
			err = checkOrder(f.Hunks[k-1], *h)
		}
		if err != nil {
			return nil, fmt.Errorf("patch: %s: hunk %d (%s): %v", name, k+1, h.header(), err)
		}
	}

	lines := splitLines(string(src))
	out := make([]byte, 0, len(src))
	next := 0   // index in lines of the first line not yet copied to out
	offset := 0 // how far from its stated line the previous hunk applied
	for k := range f.Hunks {
		h := &f.Hunks[k]
		oldLines, newLines := h.sides()
		at, err := locate(lines, oldLines, next, h.oldBegin()+offset, h.endsFile())
		if err != nil {
			return nil, fmt.Errorf("patch: %s: hunk %d (%s): %v", name, k+1, h.header(), err)
		}
		out = appendLines(out, lines[next:at])
		out = appendLines(out, newLines)
		next = at + len(oldLines)
		offset = at - h.oldBegin()
	}
	return appendLines(out, lines[next:]), nil
}

// splitLines splits s after each "\n". Only the last line may lack the
// "\n", when s does not end in one.
func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	return lines
}

func appendLines(b []byte, lines []string) []byte {
	for _, l := range lines {
		b = append(b, l...)
	}
	return b
}

// sides returns the hunk's lines in the old and in the new file, each
// with its "\n", as splitLines would return them.
func (h *Hunk) sides() (oldLines, newLines []string) {
	for _, l := range h.Lines {
		text := l[1:] + "\n"
		if l[0] != '+' {
			oldLines = append(oldLines, text)
		}
		if l[0] != '-' {
			newLines = append(newLines, text)
		}
	}
	if h.OldNoNewline {
		last := len(oldLines) - 1
		oldLines[last] = strings.TrimSuffix(oldLines[last], "\n")
	}
	if h.NewNoNewline {
		last := len(newLines) - 1
		newLines[last] = strings.TrimSuffix(newLines[last], "\n")
	}
	return oldLines, newLines
}

// endsFile reports whether the hunk must apply at the end of the file:
// it holds the last line of the old or the new file.
func (h *Hunk) endsFile() bool {
	return h.OldNoNewline || h.NewNoNewline
}

// locate returns the index in lines at which want occurs, looking no
// earlier than index lo. It looks first at index guess, then at the
// indexes nearest to it, the later one first on a tie. If atEnd is set,
// want must occur at the very end of lines.
func locate(lines, want []string, lo, guess int, atEnd bool) (int, error) {
	hi := len(lines) - len(want) // the last index at which want fits
	switch {
	case atEnd:
		if hi < lo {
			return 0, fmt.Errorf(`the hunk ends the file ("\ No newline at end of file"), but its %d old lines do not fit in the %d lines left to patch`, len(want), len(lines)-lo)
		}
		return locateAt(lines, want, lo, hi, `, where its "\ No newline at end of file" marker puts it`)
	case len(want) == 0:
		// A hunk that only adds lines, without context (diff -U0),
		// matches anywhere, so only its stated place will do.
		if n := len(lines); guess == n && n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
			// The new lines would run on from the last line.
			return 0, fmt.Errorf("cannot add lines after line %d, which has no newline at end of file", n)
		}
		return locateAt(lines, want, lo, guess, "")
	}
	best, bestScore := -1, 0 // the closest match, for the error
	for at := range nearest(min(max(guess, lo), hi), lo, hi) {
		score := countEqual(lines, want, at)
		if score == len(want) {
			return at, nil
		}
		if score > bestScore {
			best, bestScore = at, score
		}
	}
	where := " or anywhere else in the file"
	if lo > 0 {
		where = " or anywhere after the previous hunk"
	}
	at := min(max(guess, lo), len(lines))
	if best >= 0 && best != at {
		// The hunk probably belongs at best, and the differing line
		// there is what the reader needs to see.
		where += fmt.Sprintf("; the closest match is at line %d", best+1)
		return 0, mismatch(lines, want, at, best, where)
	}
	return 0, mismatch(lines, want, at, at, where)
}

// nearest yields the indexes from lo to hi, starting at start and then
// by distance from it, the later index first on a tie.
func nearest(start, lo, hi int) iter.Seq[int] {
	return func(yield func(int) bool) {
		if lo > hi {
			return
		}
		for d := 0; start+d <= hi || start-d >= lo; d++ {
			if start+d <= hi && !yield(start+d) {
				return
			}
			if d > 0 && start-d >= lo && !yield(start-d) {
				return
			}
		}
	}
}

// countEqual returns how many lines of want are equal to the lines at
// the same place in lines, if want is put at index at.
func countEqual(lines, want []string, at int) int {
	n := 0
	for j, w := range want {
		if 0 <= at+j && at+j < len(lines) && lines[at+j] == w {
			n++
		}
	}
	return n
}

// locateAt returns at if want occurs there in lines and at is not before
// lo; where explains the choice of at in the error.
func locateAt(lines, want []string, lo, at int, where string) (int, error) {
	if at < lo || at > len(lines) {
		return 0, fmt.Errorf("line %d%s is outside the lines left to patch (%d to %d)", at+1, where, lo+1, len(lines)+1)
	}
	if !matchAt(lines, want, at) {
		return 0, mismatch(lines, want, at, at, where)
	}
	return at, nil
}

// matchAt reports whether want occurs in lines at index at.
func matchAt(lines, want []string, at int) bool {
	return at >= 0 && at+len(want) <= len(lines) && countEqual(lines, want, at) == len(want)
}

// mismatch returns the error for want not occurring at index at of lines,
// showing the first line that differs if want is put at index shown.
func mismatch(lines, want []string, at, shown int, where string) error {
	for j, w := range want {
		have := "end of file"
		if shown+j < len(lines) {
			if lines[shown+j] == w {
				continue
			}
			have = describe(lines[shown+j])
		}
		return fmt.Errorf("context does not match at line %d%s; first differing line %d: want %s, have %s",
			at+1, where, shown+j+1, describe(w), have)
	}
	return fmt.Errorf("context does not match at line %d%s", at+1, where)
}

// describe quotes a line for an error message, noting a missing newline.
func describe(line string) string {
	if text, ok := strings.CutSuffix(line, "\n"); ok {
		return fmt.Sprintf("%q", truncate(text))
	}
	return fmt.Sprintf("%q (no newline at end of file)", truncate(line))
}
