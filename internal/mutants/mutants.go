// Package mutants loads the workbook's mutants: deliberately wrong variants
// of the reference solutions, one classic mistake each, that the unit tests
// must catch.
//
// A mutant lives in ci/mutants/unitNN/NAME/mutant.patch: a unified diff
// against files under solutions/unitNN/, preceded by a header:
//
//	Mutant: At adds the view's offset twice.
//	Caught-by: 1.3, boss
//	Build-flags: -race
//
// Caught-by lists the challenges (and "boss") whose tests must fail on it.
// Build-flags, optional, are added when the tests are compiled: a data race
// is only caught for certain under the race detector.
//
// The diff is applied by `git apply`, which every machine that cloned the
// workbook has: a diff, unlike a whole copy of the file, stops applying
// the day the reference around the mistake changes, so a mutant never
// silently tests yesterday's code.
package mutants

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llmforge/forge/internal/workbook"
)

// PatchName is the file that holds a mutant in its folder.
const PatchName = "mutant.patch"

// Mutant is one deliberately wrong reference solution.
type Mutant struct {
	Unit        workbook.Unit
	Name        string
	Description string   // the "Mutant:" header
	CaughtBy    []string // challenge ids, or "boss"
	BuildFlags  []string // extra go test flags, from the optional "Build-flags:" header
	Files       []string // the files the diff changes, relative to the repository root
	Path        string   // the patch file
}

// ID is "unit01/offset-twice".
func (m Mutant) ID() string { return m.Unit.Dir() + "/" + m.Name }

// Load reads every mutant in the repository, sorted by unit and name.
func Load(r workbook.Repo) ([]Mutant, error) {
	paths, err := filepath.Glob(filepath.Join(r.Root, "ci", "mutants", "unit*", "*", PatchName))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var ms []Mutant
	for _, p := range paths {
		m, err := LoadFile(p)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// LoadFile reads one mutant.
func LoadFile(path string) (Mutant, error) {
	dir := filepath.Dir(path)
	u, err := workbook.ParseUnit(filepath.Base(filepath.Dir(dir)))
	if err != nil {
		return Mutant{}, fmt.Errorf("%s: %v", path, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Mutant{}, err
	}
	preamble, files := splitPatch(data)
	m := Mutant{Unit: u, Name: filepath.Base(dir), Files: files, Path: path}
	sc := bufio.NewScanner(strings.NewReader(preamble))
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), ":")
		switch strings.TrimSpace(key) {
		case "Mutant":
			m.Description = strings.TrimSpace(val)
		case "Build-flags":
			m.BuildFlags = strings.Fields(val)
		case "Caught-by":
			for _, c := range strings.Split(val, ",") {
				if c = strings.TrimSpace(c); c != "" {
					m.CaughtBy = append(m.CaughtBy, c)
				}
			}
		}
	}
	if m.Description == "" || len(m.CaughtBy) == 0 {
		return Mutant{}, fmt.Errorf("%s: the header needs a \"Mutant: what is wrong\" line and a \"Caught-by: N.M[, boss]\" line", path)
	}
	if len(files) == 0 {
		return Mutant{}, fmt.Errorf("%s: no file changes", path)
	}
	prefix := "solutions/" + u.Dir() + "/"
	for _, f := range files {
		if !strings.HasPrefix(f, prefix) || strings.Contains(strings.TrimPrefix(f, prefix), "/") {
			return Mutant{}, fmt.Errorf("%s: patches %q; a mutant of %s may only change files directly in %s", path, f, u, prefix)
		}
	}
	return m, nil
}

// splitPatch returns the header (everything before the first "--- "
// line) and the paths the diff writes (its "+++ b/..." lines).
func splitPatch(data []byte) (preamble string, files []string) {
	lines := strings.SplitAfter(string(data), "\n")
	head := len(lines)
	for i, l := range lines {
		if strings.HasPrefix(l, "--- ") && head == len(lines) {
			head = i
		}
		if name, ok := strings.CutPrefix(strings.TrimRight(l, "\r\n"), "+++ "); ok && head < len(lines) {
			name, _, _ = strings.Cut(name, "\t")
			files = append(files, strings.TrimPrefix(name, "b/"))
		}
	}
	return strings.Join(lines[:head], ""), files
}

// Write creates dst/unitNN/ holding the unit's reference files with the
// mutant applied: a folder that `forge grade --impl DST` can grade (units it
// lacks come from the reference).
func (m Mutant) Write(r workbook.Repo, dst string) error {
	// Apply in a scratch tree laid out like the repository, outside any
	// git repository, so that git apply acts on exactly these files.
	tmp, err := os.MkdirTemp("", "forge-mutant-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	rel := filepath.Join("solutions", m.Unit.Dir())
	if err := copyImpl(r.SolutionDir(m.Unit), filepath.Join(tmp, rel)); err != nil {
		return err
	}
	patchPath, err := filepath.Abs(m.Path)
	if err != nil {
		return err
	}
	cmd := exec.Command("git", "apply", "--whitespace=nowarn", patchPath)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(tmp))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("mutant %s no longer applies (was the solution edited? re-create the patch): %s", m.ID(), strings.TrimSpace(stderr.String()))
	}
	return copyImpl(filepath.Join(tmp, rel), filepath.Join(dst, m.Unit.Dir()))
}

// copyImpl copies a unit's implementation files from src into dst.
func copyImpl(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	names, err := workbook.ImplFiles(src)
	if err != nil {
		return err
	}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, n), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
