package ci

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llmforge/forge/internal/workbook"
)

// TestArchPkgs: a unit is architecture-specific when its stub folder or its
// solution has an assembly file or a Go file built for some architectures
// only (test files do not count); every other unit is portable.
func TestArchPkgs(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"unit00/a.go":               "package unit00\n",
		"unit00/cpu_amd64.go":       "//go:build amd64\n\npackage unit00\n",
		"unit01/a.go":               "package unit01\n",
		"unit01/a_test.go":          "//go:build amd64\n\npackage unit01\n",
		"unit02/a.go":               "// Package unit02.\npackage unit02\n",
		"solutions/unit02/k.s":      "TEXT ·k(SB), 0, $0\n",
		"unit03/a.go":               "package unit03 // //go:build in a comment\n",
		"solutions/unit03/b_arm.go": "// doc\n\n//go:build arm64\n\npackage unit03\n",
		// An operating system only is not an architecture: unit04 is
		// portable. A purego fallback, a _GOARCH name or an architecture
		// anywhere in a build line is.
		"unit04/d_linux.go":   "//go:build linux\n\npackage unit04\n",
		"unit04/d_other.go":   "//go:build !linux && !windows\n\npackage unit04\n",
		"unit05/g.go":         "//go:build !amd64 || purego\n\npackage unit05\n",
		"unit06/cpu_arm64.go": "package unit06\n",
		"unit07/x.go":         "//go:build linux || arm64\n\npackage unit07\n",
	}
	for name, src := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := &Env{Repo: workbook.Repo{Root: root}}
	arch, portable, err := e.ArchPkgs()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"./unit00", "./unit02", "./unit03", "./unit05", "./unit06", "./unit07"}; !slices.Equal(arch, want) {
		t.Errorf("architecture-specific units %v; want %v", arch, want)
	}
	if want := []string{"./unit01", "./unit04"}; !slices.Equal(portable, want) {
		t.Errorf("portable units %v; want %v (a build line in a test file, or one that names operating systems only, does not count)", portable, want)
	}
}
