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
package mutants

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llmforge/forge/internal/patch"
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
	Files       []patch.File
	Path        string // the patch file
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
	preamble, files, err := patch.Parse(data)
	if err != nil {
		return Mutant{}, fmt.Errorf("%s: %v", path, err)
	}
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
		if !strings.HasPrefix(f.NewPath, prefix) || strings.Contains(strings.TrimPrefix(f.NewPath, prefix), "/") {
			return Mutant{}, fmt.Errorf("%s: patches %q; a mutant of %s may only change files directly in %s", path, f.NewPath, u, prefix)
		}
	}
	return m, nil
}

// Write creates dst/unitNN/ holding the unit's reference files with the
// mutant applied: a folder that `forge grade --impl DST` can grade (units it
// lacks come from the reference).
func (m Mutant) Write(r workbook.Repo, dst string) error {
	out := filepath.Join(dst, m.Unit.Dir())
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	names, err := workbook.ImplFiles(r.SolutionDir(m.Unit))
	if err != nil {
		return err
	}
	contents := map[string][]byte{}
	for _, n := range names {
		if contents[n], err = os.ReadFile(filepath.Join(r.SolutionDir(m.Unit), n)); err != nil {
			return err
		}
	}
	for _, f := range m.Files {
		name := filepath.Base(f.NewPath)
		applied, err := patch.Apply(contents[name], f)
		if err != nil {
			return fmt.Errorf("mutant %s no longer applies (was the solution edited? re-create the patch): %v", m.ID(), err)
		}
		contents[name] = applied
	}
	for n, data := range contents {
		if err := os.WriteFile(filepath.Join(out, n), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
