package overlay

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llmforge/forge/internal/workbook"
)

// fakeRepo lays out a tiny workbook: unit00 and unit01 with stubs, given
// files, tests and solutions.
func fakeRepo(t *testing.T) workbook.Repo {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                          "module " + workbook.Module + "\n",
		"unit00/a.go":                     "package unit00\n",
		"unit00/errors_given.go":          "package unit00\n",
		"unit00/a_test.go":                "package unit00\n",
		"unit01/b.go":                     "package unit01\n",
		"unit01/c_amd64.s":                "",
		"unit01/dtype_given.go":           "package unit01\n",
		"solutions/unit00/a.go":           "package unit00 // ref\n",
		"solutions/unit00/extra.go":       "package unit00\n",
		"solutions/unit01/b.go":           "package unit01 // ref\n",
		"student/unit01/b.go":             "package unit01 // student\n",
		"student/unit01/b_test.go":        "package unit01 // must be ignored\n",
		"student/unit01/extra_given.go":   "package unit01 // must be ignored\n",
		"student/unit01/notes.txt":        "",
		"solutions/unit01/dtype_given.go": "package unit01 // must be ignored\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return workbook.Repo{Root: root}
}

func TestBuild(t *testing.T) {
	r := fakeRepo(t)
	j := func(p ...string) string { return filepath.Join(append([]string{r.Root}, p...)...) }
	tests := []struct {
		name string
		sel  Selection
		want map[string]string
	}{
		{"all mine", Selection{Impl: Mine, Deps: Mine}, map[string]string{}},
		{"all ref", Selection{Impl: Ref, Deps: Ref}, map[string]string{
			j("unit00/a.go"):      j("solutions/unit00/a.go"),
			j("unit00/extra.go"):  j("solutions/unit00/extra.go"),
			j("unit01/b.go"):      j("solutions/unit01/b.go"),
			j("unit01/c_amd64.s"): "",
		}},
		{"unit01 mine, deps ref", Selection{Units: []workbook.Unit{1}, Impl: Mine, Deps: Ref}, map[string]string{
			j("unit00/a.go"):     j("solutions/unit00/a.go"),
			j("unit00/extra.go"): j("solutions/unit00/extra.go"),
		}},
		{"a student folder, other units from it or ref", Selection{Units: []workbook.Unit{1}, Impl: j("student"), Deps: j("student")}, map[string]string{
			j("unit00/a.go"):      j("solutions/unit00/a.go"),
			j("unit00/extra.go"):  j("solutions/unit00/extra.go"),
			j("unit01/b.go"):      j("student/unit01/b.go"),
			j("unit01/c_amd64.s"): "",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Build(r, tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Replace) != len(tc.want) {
				t.Errorf("overlay has %d entries, want %d:\n%v", len(o.Replace), len(tc.want), o.Replace)
			}
			for k, v := range tc.want {
				if got, ok := o.Replace[k]; !ok || got != v {
					t.Errorf("Replace[%s] = %q (present %v), want %q", k, got, ok, v)
				}
			}
		})
	}
	if _, err := Build(r, Selection{Impl: "/no/such/dir", Deps: Ref}); err == nil {
		t.Error("Build with a missing implementation folder returned no error")
	}
}

func TestMaterialize(t *testing.T) {
	r := fakeRepo(t)
	o, err := Build(r, Selection{Impl: Ref, Deps: Ref})
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "tree")
	if err := Materialize(r, o, dst); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dst, p))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	for p, want := range map[string]string{
		"unit00/a.go":            "package unit00 // ref\n",
		"unit00/extra.go":        "package unit00\n",
		"unit00/errors_given.go": "package unit00\n",
		"unit01/c_amd64.s":       "<missing>",
		"unit01/dtype_given.go":  "package unit01\n",
	} {
		if got := read(p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if err := Materialize(r, o, dst); err == nil {
		t.Error("Materialize into an existing folder returned no error")
	}
}

func TestParseDepsAndPick(t *testing.T) {
	base, pick, auto, ok, err := ParseDeps("ref:03,4")
	if err != nil || !ok || auto || base != Mine {
		t.Fatalf("ParseDeps(ref:03,4) = %q, %v, auto %v, ok %v, err %v", base, pick, auto, ok, err)
	}
	s := Selection{Units: []workbook.Unit{5}, Impl: Mine, Deps: base, Pick: pick}
	for u, want := range map[workbook.Unit]string{0: Mine, 3: Ref, 4: Ref, 5: Mine, 2: Mine} {
		if got := s.For(u); got != want {
			t.Errorf("DEPS=ref:03,4: unit %d is built from %q, want %q", u, got, want)
		}
	}
	// The engine's overlay names no unit under test: picks override Impl.
	e := Selection{Impl: Mine, Pick: pick}
	if e.For(3) != Ref || e.For(1) != Mine {
		t.Errorf("engine selection with picks: 03 from %q, 01 from %q; want ref, mine", e.For(3), e.For(1))
	}
	if _, _, auto, ok, _ := ParseDeps("auto"); !auto || !ok {
		t.Error("ParseDeps(auto) is not auto")
	}
	if _, _, _, ok, _ := ParseDeps("ref"); ok {
		t.Error("plain ref is not a special form")
	}
	if _, _, _, _, err := ParseDeps("ref:3x"); err == nil {
		t.Error("ref:3x: want an error naming the bad unit")
	}
	if got := s.DepsLabel(); got != "mine, ref for unit03 unit04" {
		t.Errorf("DepsLabel = %q, want %q", got, "mine, ref for unit03 unit04")
	}
	if s.Key() == (Selection{Units: s.Units, Impl: Mine, Deps: Mine}).Key() {
		t.Error("Key ignores the picks: two selections would share an overlay file")
	}
}
