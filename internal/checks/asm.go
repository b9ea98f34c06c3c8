package checks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/llmforge/forge/internal/workbook"
)

// AsmSSE finds legacy-SSE instructions (no V prefix) that touch an XMM
// register in amd64 assembly that also uses YMM or ZMM registers, anywhere
// but straight after a VZEROUPPER. On Intel cores such an instruction,
// met while the upper halves of the vector registers are dirty, pays a
// state-transition penalty every time it runs: one `MOVQ AX, X8` per
// super-block made unit09's Q4_K kernel twelve times slower on Sapphire
// Rapids, and AMD cores, which have no such penalty, never showed it. The
// VEX forms (VMOVQ, VMOVD, ...) cost nothing extra.
func AsmSSE(r workbook.Repo) []string {
	var probs []string
	for _, dir := range []string{"solutions", "bosses", "unit00", "unit01", "unit02", "unit03", "unit09"} {
		_ = filepath.WalkDir(filepath.Join(r.Root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_amd64.s") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				probs = append(probs, err.Error())
				return nil
			}
			rel, _ := filepath.Rel(r.Root, path)
			probs = append(probs, legacySSE(rel, string(src))...)
			return nil
		})
	}
	return probs
}

var (
	xmmRE  = regexp.MustCompile(`\bX([0-9]|[12][0-9]|3[01])\b`)
	wideRE = regexp.MustCompile(`\b[YZ]([0-9]|[12][0-9]|3[01])\b`)
)

// legacySSE reports the offending instructions of one file. Instructions
// are the statements of TEXT bodies and of #define macros (split at ';'),
// comments removed. An SSE instruction is allowed only where every
// instruction since the last VZEROUPPER (or since the start of the
// function) left the upper halves clean, that is used no Y or Z register.
func legacySSE(name, src string) []string {
	if !wideRE.MatchString(stripComments(src)) {
		return nil
	}
	var probs []string
	dirty := false
	for i, line := range strings.Split(src, "\n") {
		code := stripComments(line)
		if strings.HasPrefix(strings.TrimSpace(code), "TEXT ") {
			dirty = false
		}
		if strings.HasPrefix(strings.TrimSpace(code), "#define") {
			dirty = true // a macro can be expanded anywhere
			code = strings.TrimPrefix(strings.TrimSpace(code), "#define")
		}
		for _, stmt := range strings.Split(strings.TrimSuffix(strings.TrimSpace(code), `\`), ";") {
			fields := strings.Fields(stmt)
			if len(fields) == 0 {
				continue
			}
			op := fields[0]
			switch {
			case op == "VZEROUPPER" || op == "VZEROALL":
				dirty = false
			case wideRE.MatchString(stmt):
				dirty = true
			case !strings.HasPrefix(op, "V") && xmmRE.MatchString(stmt) && dirty:
				probs = append(probs, fmt.Sprintf("%s:%d: %s is a legacy-SSE instruction on an XMM register while the upper halves may be dirty: use its VEX form (V%s) or move it after VZEROUPPER", name, i+1, strings.TrimSpace(stmt), op))
			}
		}
	}
	return probs
}

func stripComments(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		i := strings.Index(s, "/*")
		j := strings.Index(s, "//")
		switch {
		case j >= 0 && (i < 0 || j < i):
			b.WriteString(s[:j])
			if k := strings.IndexByte(s[j:], '\n'); k >= 0 {
				s = s[j+k:]
			} else {
				s = ""
			}
		case i >= 0:
			b.WriteString(s[:i])
			if k := strings.Index(s[i+2:], "*/"); k >= 0 {
				s = s[i+2+k+2:]
			} else {
				s = ""
			}
		default:
			b.WriteString(s)
			s = ""
		}
	}
	return b.String()
}
