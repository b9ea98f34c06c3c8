package apicheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writePkg writes files, a map from file name to source, into a new
// temporary directory and returns it.
func writePkg(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// load runs Load on a package made of files under the first default config.
func load(t *testing.T, files map[string]string) map[string]Decl {
	t.Helper()
	decls, err := Load(writePkg(t, files), DefaultConfigs[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	return decls
}

// edit returns src with old replaced by new, and panics if src lacks old,
// so that a stale test edit cannot silently leave src unchanged.
func edit(src, old, new string) string {
	if !strings.Contains(src, old) {
		panic("edit: no " + old)
	}
	return strings.Replace(src, old, new, 1)
}

const stubTensor = `package p

type Tensor struct {
	shape []int
	data  []float32
}

func Zeros(shape ...int) (Tensor, error) {
	panic("TODO(1.1)")
}

func (t Tensor) Slice(dim, lo, hi int) (Tensor, error) {
	panic("TODO(1.2)")
}

func numel(shape []int) int {
	panic("TODO(1.3)")
}

const MaxRank = 8

type DType int

const (
	F32 DType = iota
	F16
	BF16
)

func (t *Tensor) Reset() { panic("TODO(1.4)") }
`

// The solution spells the stub's API differently: other parameter names and
// grouping, comments, layout, file split, an explicit iota, extra unexported
// helpers.
const (
	implTensor = `package p

// Tensor is a dense array.
type Tensor struct {
	shape []int // dims
	data []float32
}

type DType int

const (
	F32 DType = iota
	F16 DType = iota
	BF16
)

// Zeros returns a zero tensor.
func Zeros(dims ...int) (t Tensor, err error) {
	return Tensor{shape: dims, data: make([]float32, numel(dims))}, nil
}

func numel(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}
`
	implView = `package p

const MaxRank = 8

func (x Tensor) Slice(d int, lo int, hi int) (Tensor, error) {
	return x, checkRange(lo, hi)
}

func checkRange(lo, hi int) error { return nil }

func (t *Tensor) Reset() { *t = Tensor{} }
`
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name   string
		tensor string // the solution's tensor.go
		view   string // the solution's view.go
		want   []string
	}{
		{name: "same API", tensor: implTensor, view: implView},
		{
			name:   "missing exported method",
			tensor: implTensor,
			view:   edit(implView, "func (x Tensor) Slice", "func (x Tensor) Slice2"),
			want: []string{
				"extra exported in solution: method Tensor.Slice2(int, int, int) (Tensor, error)   [solution view.go:5]",
				"missing in solution: method Tensor.Slice(int, int, int) (Tensor, error)   [stub tensor.go:12]",
			},
		},
		{
			name:   "missing pointer method",
			tensor: implTensor,
			view:   edit(implView, "func (t *Tensor) Reset()", "func (t *Tensor) reset()"),
			want:   []string{"missing in solution: method (*Tensor).Reset()   [stub tensor.go:30]"},
		},
		{
			name:   "extra exported func",
			tensor: implTensor,
			view:   implView + "\nfunc Helper(n int) int { return n }\n",
			want:   []string{"extra exported in solution: func Helper(int) int   [solution view.go:13]"},
		},
		{
			name:   "changed result type",
			tensor: edit(implTensor, "(t Tensor, err error)", "(t *Tensor, err error)"),
			view:   implView,
			want: []string{"differs: func Zeros: stub func(...int) (Tensor, error) [tensor.go:8], " +
				"solution func(...int) (*Tensor, error) [tensor.go:18]"},
		},
		{
			name:   "pointer receiver",
			tensor: implTensor,
			view:   edit(implView, "(x Tensor)", "(x *Tensor)"),
			want: []string{"differs: method Tensor.Slice: stub (Tensor) func(int, int, int) (Tensor, error) [tensor.go:12], " +
				"solution (*Tensor) func(int, int, int) (Tensor, error) [view.go:5]"},
		},
		{
			name:   "changed struct field",
			tensor: edit(implTensor, "data []float32", "data []float64"),
			view:   implView,
			want:   []string{"differs: field Tensor.data: stub []float32 [tensor.go:5], solution []float64 [tensor.go:6]"},
		},
		{
			name:   "missing unexported field",
			tensor: edit(implTensor, "shape []int // dims\n", ""),
			view:   implView,
			want:   []string{"missing in solution: field Tensor.shape []int   [stub tensor.go:4]"},
		},
		{
			// A solution may keep state of its own (a worker pool, scratch).
			name:   "unexported field added",
			tensor: edit(implTensor, "data []float32\n", "data []float32\n\tpool *int\n"),
			view:   implView,
		},
		{
			name:   "exported field added",
			tensor: edit(implTensor, "data []float32\n", "data []float32\n\tPool *int\n"),
			view:   implView,
			want: []string{"differs: type Tensor: stub type Tensor struct{} [tensor.go:3], " +
				"solution type Tensor struct{Pool *int} [tensor.go:4]"},
		},
		{
			name:   "changed const value",
			tensor: implTensor,
			view:   edit(implView, "MaxRank = 8", "MaxRank = 4"),
			want:   []string{"differs: const MaxRank: stub const MaxRank = 8 [tensor.go:20], solution const MaxRank = 4 [view.go:3]"},
		},
		{
			name:   "changed kind",
			tensor: implTensor,
			view:   edit(implView, "const MaxRank", "var MaxRank"),
			want:   []string{"differs: const MaxRank: stub const MaxRank = 8 [tensor.go:20], solution var MaxRank = 8 [view.go:3]"},
		},
		{
			name:   "missing unexported helper",
			tensor: edit(implTensor, "func numel(s []int) int", "func count(s []int) int"),
			view:   implView,
			want:   []string{"missing in solution: func numel([]int) int   [stub tensor.go:16]"},
		},
		{
			name:   "changed unexported helper",
			tensor: edit(implTensor, "func numel(s []int) int", "func numel(s []int) (int, bool)"),
			view:   implView,
			want: []string{"differs: func numel: stub func([]int) int [tensor.go:16], " +
				"solution func([]int) (int, bool) [tensor.go:22]"},
		},
		{
			name:   "unexported additions are free",
			tensor: implTensor,
			// An unexported type's methods are not API even if their names are exported.
			view: implView + "\ntype heap []int\n\nfunc (h heap) Len() int { return len(h) }\n\nvar cache = map[string]int{}\n",
		},
		{
			// Implicit repetition equals the explicit spelling of the same
			// expression at the same iota; see also TestSig.
			name:   "iota spelled out",
			tensor: edit(implTensor, "BF16\n", "BF16 DType = iota\n"),
			view:   implView,
		},
		{
			name:   "iota reordered",
			tensor: edit(implTensor, "F16 DType = iota\n\tBF16\n", "BF16 DType = iota\n\tF16\n"),
			view:   implView,
			want: []string{
				"differs: const BF16: stub const BF16 DType = iota [iota=2] [tensor.go:27], solution const BF16 DType = iota [iota=1] [tensor.go:13]",
				"differs: const F16: stub const F16 DType = iota [iota=1] [tensor.go:26], solution const F16 DType = iota [iota=2] [tensor.go:14]",
			},
		},
		{
			// Values are compared as text, not evaluated: 1 is not iota at iota 1.
			name:   "iota replaced by its value",
			tensor: edit(implTensor, "F16 DType = iota", "F16 DType = 1"),
			view:   implView,
			want: []string{
				// BF16 repeats F16's expression in the solution.
				"differs: const BF16: stub const BF16 DType = iota [iota=2] [tensor.go:27], solution const BF16 DType = 1 [tensor.go:14]",
				"differs: const F16: stub const F16 DType = iota [iota=1] [tensor.go:26], solution const F16 DType = 1 [tensor.go:13]",
			},
		},
	}
	stub := load(t, map[string]string{"tensor.go": stubTensor})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			impl := load(t, map[string]string{"tensor.go": tt.tensor, "view.go": tt.view})
			if got := Compare(stub, impl); !slices.Equal(got, tt.want) {
				t.Errorf("Compare:\ngot  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSig(t *testing.T) {
	const src = `package p

import "errors"

type DType int

const (
	F32 DType = iota
	F16
	_
	BF16
)

const (
	KB = 1 << (10 * (iota + 1))
	MB
	Name = "forge"
	Alias
)

type Shape struct {
	rank int // comments are dropped
	dims [8]int
	a, b string ` + "`json:\"ab\"`" + `
	f    func(x, y int) (err error)
	*Base
}

type Base struct{}
type Dims = []int
type List[K comparable, V any] struct{ items map[K]V }
type Num interface{ ~int | ~float64 }
type Reader interface {
	Read(p []byte) (n int, err error)
	Num
}

func (l *List[A, B]) Put(k A, vs ...B) (ok bool) { return }
func (List[_, _]) Len() int { return 0 }
func Sum[T, U Num](xs []T, u U) T { panic("TODO") }
func init() {}
func init() {}

var _ = 1
var ErrX = errors.New("x")
var a, b int = 1, 2
var c, d = pair()
var table = map[string]int{
	"a": 1,
	"b": 2,
}
var sq = func(x int) int {
	y := x * x
	return y
}
`
	want := map[string]string{
		"F32":        "const F32 DType = iota [iota=0]",
		"F16":        "const F16 DType = iota [iota=1]",
		"BF16":       "const BF16 DType = iota [iota=3]",
		"KB":         "const KB = 1 << (10 * (iota + 1)) [iota=0]",
		"MB":         "const MB = 1 << (10 * (iota + 1)) [iota=1]",
		"Name":       `const Name = "forge"`,
		"Alias":      `const Alias = "forge"`,
		"DType":      "type DType int",
		"Shape":      "type Shape struct{*Base}",
		"Shape.rank": "int",
		"Shape.dims": "[8]int",
		"Shape.a":    "string `json:\"ab\"`",
		"Shape.b":    "string `json:\"ab\"`",
		"Shape.f":    "func(int, int) error",
		"Base":       "type Base struct{}",
		"Dims":       "type Dims = []int",
		"List":       "type List[K comparable, V any] struct{}",
		"List.items": "map[K]V",
		"Num":        "type Num interface{~int | ~float64}",
		"Reader":     "type Reader interface{Read([]byte) (int, error); Num}",
		"List.Put":   "(*List[K, V]) func(K, ...V) bool",
		"List.Len":   "(List[K, V]) func() int",
		"Sum":        "func[T Num, U Num]([]T, U) T",
		"ErrX":       `var ErrX = errors.New("x")`,
		"a":          "var a int = 1",
		"b":          "var b int = 2",
		"c":          "var c = pair() [value 1 of 2]",
		"d":          "var d = pair() [value 2 of 2]",
		"table":      `var table = map[string]int{"a": 1, "b": 2}`,
		"sq":         "var sq = func(x int) int {y := x * x; return y}",
	}
	got := make(map[string]string)
	for name, d := range load(t, map[string]string{"a.go": src}) {
		got[name] = d.Sig
	}
	for name, sig := range want {
		if got[name] != sig {
			t.Errorf("Sig of %s:\ngot  %q\nwant %q", name, got[name], sig)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected declaration %s: %s", name, got[name])
		}
	}
}

// TestSameAPI checks which spellings normalize to the same declarations.
func TestSameAPI(t *testing.T) {
	tests := []struct {
		name string
		a, b string // declarations following "package p"
		same bool
	}{
		{"param names", "func F(a, b int) (n int)", "func F(x int, y int) int", true},
		{"param types", "func F(a, b int)", "func F(a int, b int64)", false},
		{"variadic", "func F(a ...int)", "func F(a []int)", false},
		{"struct grouping and layout", "type S struct{ a, b int }", "type S struct {\n\ta int\n\n\tb int // b\n}", true},
		{"struct field order", "type S struct{ A, B int }", "type S struct{ B, A int }", false},
		{"unexported field order", "type S struct{ a, b int }", "type S struct{ b, a int }", true},
		{"struct tag", "type S struct{ A int `json:\"a\"` }", "type S struct{ A int }", false},
		{"unexported field tag", "type S struct{ a int `json:\"a\"` }", "type S struct{ a int }", false},
		{"embedded field", "type S struct{ *B }", "type S struct{ B }", false},
		{"func type param names", "type F func(a, b int) (err error)", "type F func(int, int) error", true},
		{"interface layout", "type I interface{ M(p []byte) error }", "type I interface {\n\tM([]byte) error\n}", true},
		{"alias", "type A = B", "type A B", false},
		{"type param grouping", "func F[K, V any](K, V)", "func F[K any, V any](K, V)", true},
		{"type param names", "func F[T any](T)", "func F[U any](U)", false},
		{"type param constraint", "func F[T any](T)", "func F[T comparable](T)", false},
		{
			"receiver type param names",
			"type L[T any] []T\nfunc (l *L[T]) Push(v T)",
			"type L[T any] []T\nfunc (s *L[E]) Push(x E)",
			true,
		},
		{
			"receiver type params swapped",
			"type P[K, V any] struct{}\nfunc (p P[K, V]) Get(K) V",
			"type P[K, V any] struct{}\nfunc (p P[V, K]) Get(V) K",
			true,
		},
		{
			"receiver type params used differently",
			"type P[K, V any] struct{}\nfunc (p P[K, V]) Get(K) V",
			"type P[K, V any] struct{}\nfunc (p P[K, V]) Get(V) K",
			false,
		},
		{
			"receiver type param named like a package member",
			"import \"io\"\ntype P[T any] struct{}\nfunc (p P[T]) Get(io.Reader) T",
			"import \"io\"\ntype P[T any] struct{}\nfunc (p P[Reader]) Get(io.Reader) Reader",
			true,
		},
		{"literal layout", "var m = map[string]int{\n\t\"a\": 1,\n\t\"b\": 2,\n}", "var m = map[string]int{\"a\": 1, \"b\": 2}", true},
		{"var grouping", "var a, b = 1, 2", "var (\n\ta = 1\n\tb = 2\n)", true},
		{"var type", "var a int = 1", "var a = 1", false},
		{"const type", "const X = 1", "const X int = 1", false},
		{"iota repeated", "const (\n\tA T = iota\n\tB\n)", "const (\n\tA T = iota\n\tB T = iota\n)", true},
		{"iota skipped", "const (\n\tA T = iota\n\tB\n)", "const (\n\tA T = iota\n\t_\n\tB\n)", false},
		{"repeat without iota", "const (\n\tA = 1\n\tB\n)", "const (\n\tA = 1\n\tB = 1\n)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := load(t, map[string]string{"a.go": "package p\n\n" + tt.a + "\n"})
			b := load(t, map[string]string{"a.go": "package p\n\n" + tt.b + "\n"})
			if diffs := Compare(a, b); (len(diffs) == 0) != tt.same {
				t.Errorf("same = %v, want %v; differences: %q", len(diffs) == 0, tt.same, diffs)
			}
		})
	}
}

func TestLoadFileSelection(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"all.go":         "package p\n\nfunc All() {}\n",
		"debug_on.go":    "//go:build forgedebug\n\npackage p\n\nconst Debug = true\n",
		"debug_off.go":   "//go:build !forgedebug\n\npackage p\n\nconst Debug = false\n",
		"simd_arm64.go":  "package p\n\nfunc SIMD() {}\n",
		"os_windows.go":  "package p\n\nfunc Windows() {}\n",
		"cgo.go":         "//go:build cgo\n\npackage p\n\nfunc Cgo() {}\n",
		"all_test.go":    "package p\n\nfunc TestHelper() {}\n",
		"given.go":       "package p\n\nfunc Given() {}\n",
		"_ignored.go":    "package p\n\nfunc Ignored() {}\n",
		"notes.txt":      "func Text() {}\n",
		"broken.go.orig": "not Go",
	})
	skipGiven := func(name string) bool { return strings.HasPrefix(name, "given") }
	tests := []struct {
		cfg  Config
		skip func(string) bool
		want []string
	}{
		{DefaultConfigs[0], nil, []string{"All", "Debug=false", "Given"}},
		{DefaultConfigs[0], skipGiven, []string{"All", "Debug=false"}},
		{Config{GOOS: "linux", GOARCH: "amd64", Tags: []string{"forgedebug"}}, skipGiven, []string{"All", "Debug=true"}},
		{Config{GOOS: "darwin", GOARCH: "arm64"}, skipGiven, []string{"All", "Debug=false", "SIMD"}},
		{Config{GOOS: "windows", GOARCH: "arm64", Tags: []string{"forgedebug"}}, skipGiven, []string{"All", "Debug=true", "SIMD", "Windows"}},
	}
	for _, tt := range tests {
		decls, err := Load(dir, tt.cfg, tt.skip)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for name, d := range decls {
			if name == "Debug" {
				name += "=" + d.Sig[strings.LastIndex(d.Sig, " ")+1:]
			}
			got = append(got, name)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Load under %s, skip given %v: got %q, want %q", tt.cfg, tt.skip != nil, got, tt.want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error
	}{
		{
			"duplicate",
			map[string]string{
				"a.go": "package p\n\nfunc F() {}\n",
				"b.go": "package p\n\ntype T int\n\nvar F = 1\n",
			},
			[]string{"F declared twice", "a.go:3", "b.go:5"},
		},
		{
			"duplicate method",
			map[string]string{"a.go": "package p\n\ntype T int\n\nfunc (T) M() {}\nfunc (*T) M() {}\n"},
			[]string{"T.M declared twice", "a.go:5", "a.go:6"},
		},
		{"syntax error", map[string]string{"a.go": "package p\n\nfunc {\n"}, []string{"a.go:3"}},
	}
	for _, tt := range tests {
		_, err := Load(writePkg(t, tt.files), DefaultConfigs[0], nil)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, s := range tt.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, s)
			}
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing"), DefaultConfigs[0], nil); err == nil {
		t.Error("Load of a missing directory: no error")
	}
}

func TestCheckDirs(t *testing.T) {
	stub := writePkg(t, map[string]string{
		"assert_on.go":  "//go:build forgedebug\n\npackage p\n\nfunc Assert(cond bool, msg string) {}\n",
		"assert_off.go": "//go:build !forgedebug\n\npackage p\n\nfunc Assert(cond bool, msg string) {}\n",
		"core.go":       "package p\n\nfunc Core(n int) int { panic(\"TODO\") }\n\nfunc Gone() {}\n",
		"given.go":      "package p\n\nfunc Given() {}\n",
	})
	impl := writePkg(t, map[string]string{
		// Differs only in debug builds.
		"assert_on.go":  "//go:build forgedebug\n\npackage p\n\nfunc Assert(cond bool, msg ...string) {}\n",
		"assert_off.go": "//go:build !forgedebug\n\npackage p\n\nfunc Assert(ok bool, m string) {}\n",
		// Extra only on arm64, in all or only in release builds.
		"core.go":       "package p\n\nfunc Core(k int) int { return k }\n",
		"fast_arm64.go": "package p\n\nfunc Fast() {}\n",
		"simd_arm64.go": "//go:build !forgedebug\n\npackage p\n\nfunc SIMD() {}\n",
		// Missing only on one config.
		"gone.go": "//go:build !(windows && forgedebug)\n\npackage p\n\nfunc Gone() {}\n",
		// Present, and thus reported, only in debug builds.
		"trace_on.go": "//go:build forgedebug\n\npackage p\n\nfunc Trace() {}\n",
		// Given files are skipped on both sides.
		"given_extra.go": "package p\n\nfunc Extra() {}\n",
	})
	skip := func(name string) bool { return strings.HasPrefix(name, "given") }
	got, err := CheckDirs(stub, impl, skip, DefaultConfigs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"[forgedebug] differs: func Assert: stub func(bool, string) [assert_on.go:5], solution func(bool, ...string) [assert_on.go:5]",
		"[linux/arm64, darwin/arm64] extra exported in solution: func Fast()   [solution fast_arm64.go:3]",
		"[linux/arm64 untagged, darwin/arm64 untagged] extra exported in solution: func SIMD()   [solution simd_arm64.go:5]",
		"[forgedebug] extra exported in solution: func Trace()   [solution trace_on.go:5]",
		"[windows/amd64 forgedebug] missing in solution: func Gone()   [stub core.go:5]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("CheckDirs:\ngot  %q\nwant %q", got, want)
	}

	// A release-only difference on every platform is labelled by tags.
	impl2 := writePkg(t, map[string]string{
		"assert_on.go":  "//go:build forgedebug\n\npackage p\n\nfunc Assert(cond bool, msg string) {}\n",
		"assert_off.go": "//go:build !forgedebug\n\npackage p\n\nfunc Assert(cond bool) {}\n",
		"core.go":       "package p\n\nfunc Core(k int) int { return k }\n\nfunc Gone() {}\n",
	})
	got, err = CheckDirs(stub, impl2, skip, DefaultConfigs)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"[untagged] differs: func Assert: stub func(bool, string) [assert_off.go:5], solution func(bool) [assert_off.go:5]"}
	if !slices.Equal(got, want) {
		t.Errorf("CheckDirs:\ngot  %q\nwant %q", got, want)
	}

	if _, err := CheckDirs(stub, filepath.Join(impl, "missing"), skip, DefaultConfigs); err == nil {
		t.Error("CheckDirs with a missing directory: no error")
	}
}
