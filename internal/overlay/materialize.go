package overlay

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmforge/forge/internal/workbook"
)

// skipDirs are never copied by Materialize: version control, build outputs
// and local state.
var skipDirs = map[string]bool{".git": true, "bin": true, ".tools": true, ".forge": true, "node_modules": true}

// Materialize copies the repository to dst with the overlay applied for
// real: removed files are left out and replaced files take their new
// contents. Tools that do not understand -overlay (staticcheck, an editor)
// can then work on the selection as a plain tree. dst must not exist yet.
func Materialize(r workbook.Repo, o Overlay, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("materialize: %s already exists", dst)
	}
	err := filepath.WalkDir(r.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.Root, path)
		if d.Type()&fs.ModeSymlink != 0 && skipDirs[d.Name()] {
			return nil // e.g. a node_modules linked from another folder
		}
		if d.IsDir() {
			if skipDirs[d.Name()] && path != r.Root {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		src, replaced := o.Replace[path]
		switch {
		case replaced && src == "":
			return nil // removed from the build
		case !replaced:
			src = path
		}
		return copyFile(src, filepath.Join(dst, rel))
	})
	if err != nil {
		return err
	}
	return materializeAdded(r, o, dst)
}

// materializeAdded copies the overlay's added files, those whose target does
// not exist in the repository, into dst.
func materializeAdded(r workbook.Repo, o Overlay, dst string) error {
	for target, src := range o.Replace {
		if src == "" {
			continue
		}
		if _, err := os.Stat(target); err == nil {
			continue // copied by the walk
		}
		rel, err := filepath.Rel(r.Root, target)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("materialize: overlay target %s is outside the repository", target)
		}
		if err := copyFile(src, filepath.Join(dst, rel)); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
