package checks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckSums(t *testing.T) {
	const (
		sumA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb" // sha256("a")
		sumB = "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d" // sha256("b")
	)
	tests := []struct {
		name  string
		files map[string]string // path → content; "SHA256SUMS" is the manifest
		want  []string          // substrings, one per expected problem
	}{
		{"ok", map[string]string{"a": "a", "sub/b": "b", "fuzz/FuzzX/seed": "anything",
			"SHA256SUMS": sumA + "  ./a\n" + sumB + "  sub/b\n"}, nil},
		{"no manifest", map[string]string{"a": "a"}, []string{"SHA256SUMS: missing"}},
		{"unlisted", map[string]string{"a": "a", "sub/b": "b", "SHA256SUMS": sumA + "  a\n"}, []string{"sub/b is not in SHA256SUMS"}},
		{"changed", map[string]string{"a": "A", "SHA256SUMS": sumA + "  a\n"}, []string{"a does not match"}},
		{"gone", map[string]string{"a": "a", "SHA256SUMS": sumA + "  a\n" + sumB + "  b\n"}, []string{"b is listed in SHA256SUMS but missing"}},
		{"garbled", map[string]string{"a": "a", "SHA256SUMS": "xyz a\n"}, []string{"line 1 is not"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for path, content := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(path))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			probs := checkSums("unitXX/testdata", dir)
			if len(probs) != len(tc.want) {
				t.Fatalf("got %d problems %q, want %d matching %q", len(probs), probs, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(probs[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, probs[i], w)
				}
			}
		})
	}
}
