package checks

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llmforge/forge/internal/workbook"
)

// SumsFile is the checksum manifest of a unit's testdata directory, in the
// format of `sha256sum` ("<hex digest>  <path>", paths relative to the
// directory, one per line).
const SumsFile = "SHA256SUMS"

// Testdata checks every unitNN/testdata directory against its manifest:
// each committed file is listed, each listed file exists, and each digest
// matches. Fuzz corpora (testdata/fuzz/) and the manifest itself are
// exempt: `go test -fuzz` adds to the corpora, and that is welcome.
func Testdata(r workbook.Repo) []string {
	var probs []string
	for _, u := range r.WrittenUnits() {
		dir := filepath.Join(r.UnitDir(u), "testdata")
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		probs = append(probs, checkSums(u.Dir()+"/testdata", dir)...)
	}
	return probs
}

func checkSums(name, dir string) []string {
	fix := fmt.Sprintf("(after checking the change is intended, regenerate it: cd %s && sha256sum $(find . -type f ! -name %s ! -path './fuzz/*' | sort) > %s)", name, SumsFile, SumsFile)
	want, err := readSums(filepath.Join(dir, SumsFile))
	if err != nil {
		return []string{fmt.Sprintf("%s/%s: %v %s", name, SumsFile, err, fix)}
	}
	have, err := hashTree(dir)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", name, err)}
	}
	var probs []string
	for path, sum := range have {
		switch w, ok := want[path]; {
		case !ok:
			probs = append(probs, fmt.Sprintf("%s/%s is not in %s %s", name, path, SumsFile, fix))
		case w != sum:
			probs = append(probs, fmt.Sprintf("%s/%s does not match its %s digest: the file changed %s", name, path, SumsFile, fix))
		}
	}
	for path := range want {
		if _, ok := have[path]; !ok {
			probs = append(probs, fmt.Sprintf("%s/%s is listed in %s but missing", name, path, SumsFile))
		}
	}
	sort.Strings(probs)
	return probs
}

// readSums parses a manifest into path → hex digest.
func readSums(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("missing: every testdata directory carries a checksum manifest")
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		digest, file, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(digest) != 64 {
			return nil, fmt.Errorf("line %d is not \"<sha256>  <path>\"", n)
		}
		sums[strings.TrimPrefix(file, "./")] = digest
	}
	return sums, nil
}

// hashTree digests every file under dir except the manifest and fuzz corpora.
func hashTree(dir string) (map[string]string, error) {
	sums := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "fuzz" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == SumsFile {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		h := sha256.Sum256(data)
		sums[rel] = hex.EncodeToString(h[:])
		return nil
	})
	return sums, err
}
