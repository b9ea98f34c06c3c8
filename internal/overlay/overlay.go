// Package overlay builds the `go build -overlay` file that swaps one
// implementation of a unit for another without touching any file on disk.
//
// For every unit given a non-learner implementation, each implementation file
// (non-test, non-given source) of unitNN/ is removed from the build and each
// implementation file of the chosen source folder is added as if it lived in
// unitNN/. Given files and tests always stay.
package overlay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmforge/forge/internal/workbook"
)

// Implementation names, as accepted by Selection.Impl and Selection.Deps.
const (
	Mine = "mine" // the learner's own unitNN/ files
	Ref  = "ref"  // the reference solutions in solutions/unitNN/
)

// Selection says which implementation each unit is built from.
type Selection struct {
	// Units are the units under test. They use Impl; every other unit uses
	// Deps. When Units is empty, every unit uses Impl.
	Units []workbook.Unit
	// Impl and Deps are Mine, Ref or a folder that mirrors solutions/ (it holds
	// unitNN/ folders). A unit missing from such a folder uses Ref.
	Impl, Deps string
	// Pick chooses the implementation of single units that are not under
	// test, over Deps (and over Impl when Units is empty): DEPS=ref:03,04
	// and DEPS=auto fill it.
	Pick map[workbook.Unit]string
}

// For returns the implementation a unit is built from under s.
func (s Selection) For(u workbook.Unit) string {
	for _, t := range s.Units {
		if t == u {
			return s.Impl
		}
	}
	if impl, ok := s.Pick[u]; ok {
		return impl
	}
	if len(s.Units) == 0 {
		return s.Impl
	}
	return s.Deps
}

// DepsLabel describes what the units not under test are built from, for
// a report's header: "ref", or "mine, ref for unit03 unit04" with picks.
func (s Selection) DepsLabel() string {
	base := s.Deps
	if len(s.Units) == 0 {
		base = s.Impl
	}
	byImpl := map[string][]string{}
	var impls []string
	for u := range workbook.Unit(workbook.NumUnits) {
		if impl, ok := s.Pick[u]; ok && impl != base && !slices.Contains(s.Units, u) {
			if byImpl[impl] == nil {
				impls = append(impls, impl)
			}
			byImpl[impl] = append(byImpl[impl], u.Dir())
		}
	}
	label := base
	for _, impl := range impls {
		label += ", " + impl + " for " + strings.Join(byImpl[impl], " ")
	}
	return label
}

// Key identifies the selection in full, for naming files derived from it.
func (s Selection) Key() string {
	key := fmt.Sprintf("%v|%s|%s", s.Units, s.Impl, s.Deps)
	for u := range workbook.Unit(workbook.NumUnits) {
		if impl, ok := s.Pick[u]; ok {
			key += fmt.Sprintf("|%s=%s", u, impl)
		}
	}
	return key
}

// Overlay is the JSON document that `go build -overlay` reads.
type Overlay struct {
	Replace map[string]string
}

// Build computes the overlay for s in repo r. The result is empty when every
// unit is the learner's.
func Build(r workbook.Repo, s Selection) (Overlay, error) {
	o := Overlay{Replace: map[string]string{}}
	for _, u := range r.WrittenUnits() {
		src, err := SourceDir(r, s.For(u), u)
		if err != nil {
			return Overlay{}, err
		}
		if src == "" {
			continue
		}
		if err := o.swap(r.UnitDir(u), src); err != nil {
			return Overlay{}, err
		}
	}
	return o, nil
}

// SourceDir returns the folder that unit u's implementation comes from under
// impl, or "" for the learner's own folder.
func SourceDir(r workbook.Repo, impl string, u workbook.Unit) (string, error) {
	switch impl {
	case Mine, "":
		return "", nil
	case Ref:
		dir := r.SolutionDir(u)
		if _, err := os.Stat(dir); err != nil {
			return "", fmt.Errorf("%s has no reference solution (%s is missing)", u, dir)
		}
		return dir, nil
	}
	base, err := filepath.Abs(impl)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("implementation %q is neither mine, ref nor a folder", impl)
	}
	dir := filepath.Join(base, u.Dir())
	if _, err := os.Stat(dir); err != nil {
		return SourceDir(r, Ref, u) // the folder does not have this unit
	}
	return dir, nil
}

// swap removes unitDir's implementation files and adds src's in their place.
func (o Overlay) swap(unitDir, src string) error {
	old, err := workbook.ImplFiles(unitDir)
	if err != nil {
		return err
	}
	for _, name := range old {
		o.Replace[filepath.Join(unitDir, name)] = ""
	}
	repl, err := workbook.ImplFiles(src)
	if err != nil {
		return err
	}
	if len(repl) == 0 {
		return fmt.Errorf("%s holds no implementation files (.go or .s, not tests, not *_given.go)", src)
	}
	for _, name := range repl {
		o.Replace[filepath.Join(unitDir, name)] = filepath.Join(src, name)
	}
	return nil
}

// Empty reports whether the overlay changes nothing.
func (o Overlay) Empty() bool { return len(o.Replace) == 0 }

// Write saves the overlay as JSON in dir under name and returns its path.
func (o Overlay) Write(dir, name string) (string, error) {
	data, err := json.MarshalIndent(o, "", "\t")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, append(data, '\n'), 0o644)
}
