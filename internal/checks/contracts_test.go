package checks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmforge/forge/internal/workbook"
)

func TestContracts(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/unit01.md", "# unit01\n")
	write("unit01/a.go", `package unit01

import "errors"

var ErrFull = errors.New("full")

// Named fails with ErrFull when full.
func Named() error { panic("TODO(1.1): x, see docs/unit01.md") }

// Silent fails.
func Silent() (int, error) { panic("TODO(1.1): x, see docs/unit01.md") }

type T struct{}

// Method returns an error.
func (T) Method() error { panic("TODO(1.1): x, see docs/unit01.md") }
`)
	write("unit01/a_test.go", `package unit01

import (
	"errors"
	"testing"
	"other/unit00"

	"github.com/stretchr/testify/require"
)

func TestC1_1_X(t *testing.T) {
	if err := Named(); !errors.Is(err, ErrFull) {
		t.Fatal(err)
	}
	_, err := Silent()
	require.ErrorIs(t, err, unit00.ErrInvalid)
	err = T{}.Method()
	if !errors.Is(err, ErrFull) {
		t.Fatal(err)
	}
	err = unit00.Named() // another package's function of the same name
	if !errors.Is(err, unit00.ErrInvalid) {
		t.Fatal(err)
	}
}
`)
	probs := Contracts(workbook.Repo{Root: root})
	got := strings.Join(probs, "\n")
	for _, want := range []string{"Silent's doc comment does not name ErrInvalid", "Method's doc comment does not name ErrFull"} {
		if !strings.Contains(got, want) {
			t.Errorf("Contracts: missing %q in:\n%s", want, got)
		}
	}
	if len(probs) != 2 {
		t.Errorf("Contracts found %d problems, want 2 (Named's doc names ErrFull; unit00.Named is not the unit's):\n%s", len(probs), got)
	}
}
