package mutation

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// gen returns the mutants of a function body as "operator: orig -> mut",
// after checking that each one's applied text still parses.
func gen(t *testing.T, body string) []string {
	t.Helper()
	src := "package p\n\nfunc f(a, b, c int, ok bool, xs []int) int {\n" + body + "\n}\n"
	ms, err := Generate("p/f.go", []byte(src))
	if err != nil {
		t.Fatalf("Generate(%q): %v", body, err)
	}
	var out []string
	for _, m := range ms {
		mutated := m.Apply([]byte(src))
		if _, err := parser.ParseFile(token.NewFileSet(), "m.go", mutated, 0); err != nil {
			t.Errorf("mutant %s does not parse: %v\n%s", m, err, mutated)
		}
		if m.Func != "f" || m.File != "p/f.go" || m.Line < 4 {
			t.Errorf("mutant %s: func %q, file %q, line %d; want f, p/f.go, line 4 or later", m, m.Func, m.File, m.Line)
		}
		out = append(out, string(m.Op)+": "+m.Orig+" -> "+m.Mut)
	}
	return out
}

func TestOperators(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"arithmetic", "return a + b*c - a/b + a%b", []string{
			"arithmetic-base: a + b*c - a/b + a%b -> a + b*c - a/b - a%b",
			"arithmetic-base: a + b*c - a/b -> a + b*c + a/b",
			"arithmetic-base: a + b*c -> a - b*c",
			"arithmetic-base: b*c -> b/c",
			"arithmetic-base: a/b -> a*b",
			"arithmetic-base: a%b -> a*b",
		}},
		{"boundary and negation", "if a < b { return 1 }\nreturn 0", []string{
			"guard-removal: a < b -> false",
			"conditionals-boundary: a < b -> a <= b",
			"conditionals-negation: a < b -> a >= b",
			"integer-constant: 1 -> 0", "integer-constant: 1 -> 2",
			"integer-constant: 0 -> (-1)", "integer-constant: 0 -> 1",
		}},
		{"equality", "_ = a == b\n_ = a != b\n_ = a >= b\nreturn 0", []string{
			"conditionals-negation: a == b -> a != b",
			"conditionals-negation: a != b -> a == b",
			"conditionals-boundary: a >= b -> a > b",
			"conditionals-negation: a >= b -> a < b",
			"integer-constant: 0 -> (-1)", "integer-constant: 0 -> 1",
		}},
		{"increment", "a++\nb--\nreturn a", []string{
			"increment-decrement: a++ -> a--",
			"increment-decrement: b-- -> b++",
		}},
		{"assignments", "a += b\na %= b\nreturn a", []string{
			"invert-assignments: a += b -> a -= b",
			"remove-self-assignments: a += b -> a = b",
			"invert-assignments: a %= b -> a *= b",
			"remove-self-assignments: a %= b -> a = b",
		}},
		{"bitwise", "a &= b\nreturn a<<b | c&^a", []string{
			"invert-bitwise-assign: a &= b -> a |= b",
			"remove-self-assignments: a &= b -> a = b",
			"invert-bitwise: a<<b | c&^a -> a<<b & c&^a",
			"invert-bitwise: a<<b -> a>>b",
			"invert-bitwise: c&^a -> c&a",
		}},
		{"logical", "_ = ok && a > 0 || ok\nreturn a", []string{
			"invert-logical: ok && a > 0 || ok -> ok && a > 0 && ok",
			"invert-logical: ok && a > 0 -> ok || a > 0",
			"conditionals-boundary: a > 0 -> a >= 0",
			"conditionals-negation: a > 0 -> a <= 0",
			"integer-constant: a > 0 -> a > (-1)", "integer-constant: a > 0 -> a > 1",
		}},
		{"loop control", "for _, x := range xs { if x == a { continue }; break }\nreturn a", []string{
			"guard-removal: x == a -> false",
			"conditionals-negation: x == a -> x != a",
			"invert-loop-control: continue -> break",
			"invert-loop-control: break -> continue",
		}},
		{"negatives", "return -a + -(b)", []string{
			"arithmetic-base: -a + -(b) -> -a - -(b)",
			"invert-negatives: -a -> a",
			"invert-negatives: -(b) -> (b)",
		}},
		{"string concatenation is left alone", `_ = "x" + "y"` + "\nreturn a", nil},
		{"hex and array lengths", "var t [4]int\n_ = t\nreturn a & 0xff", []string{
			"invert-bitwise: a & 0xff -> a | 0xff",
			"integer-constant: a & 0xff -> a & 0xfe", "integer-constant: a & 0xff -> a & 0x100",
		}},
		{"guard with init keeps its variable used", "if err := g(); err != nil { return 0 }\nreturn a", []string{
			"guard-removal: err != nil -> false",
			"conditionals-negation: err != nil -> err == nil",
			"integer-constant: 0 -> (-1)", "integer-constant: 0 -> 1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gen(t, tt.body)
			if !slices.Equal(got, tt.want) {
				t.Errorf("mutants of %q:\n got  %q\n want %q", tt.body, got, tt.want)
			}
		})
	}
}

func TestGuardRemovalKeepsTheCondition(t *testing.T) {
	src := "package p\n\nfunc f() int {\n\tif err := g(); err != nil {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
	ms, err := Generate("f.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ms, func(m Mutant) bool { return m.Op == GuardRemoval })
	if i < 0 {
		t.Fatalf("no guard-removal mutant of %q", src)
	}
	got := string(ms[i].Apply([]byte(src)))
	if !strings.Contains(got, "if err := g(); false && (err != nil) {") {
		t.Errorf("guard removal wrote\n%s\nwant the condition made never true while err stays used", got)
	}
}

func TestIsGuard(t *testing.T) {
	tests := map[string]bool{
		"if a { return }":                         true,
		"if a { x(); panic(1) }":                  true,
		"for { if a { break } }":                  true,
		"for { if a { continue } }":               true,
		"if a { x() }":                            false,
		"if a { }":                                false,
		"if a { return } else { x() }":            true,
		"switch { case a: if a { fallthrough } }": false,
	}
	for body, want := range tests {
		src := "package p\n\nfunc f() {\n" + body + "\n}\n"
		ms, err := Generate("f.go", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		got := slices.ContainsFunc(ms, func(m Mutant) bool { return m.Op == GuardRemoval })
		if got != want {
			t.Errorf("%q: guard removal generated = %v, want %v", body, got, want)
		}
	}
}

func TestIdentity(t *testing.T) {
	src := "package p\n\ntype T struct{}\n\nfunc (t *T) M(a int) int {\n\treturn g(a, 1) + g(a, 1)\n}\n"
	ms, err := Generate("solutions/unit09/x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var occ []int
	for _, m := range ms {
		if m.Func != "T.M" {
			t.Errorf("%s: func %q, want T.M", m, m.Func)
		}
		if m.Op == IntegerConstant && m.repl == "2" {
			occ = append(occ, m.Occ)
		}
	}
	// "g(a, 1) -> g(a, 2)" twice in the same function: occurrences 0 and 1.
	if !slices.Equal(occ, []int{0, 1}) {
		t.Errorf("occurrences of integer-constant 1 -> 2 in T.M: %v, want [0 1]", occ)
	}
	// An edit elsewhere (a new function above) changes lines, not keys.
	moved := strings.Replace(src, "type T struct{}", "type T struct{}\n\nfunc g() {}\n", 1)
	ms2, err := Generate("solutions/unit09/x.go", []byte(moved))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms2) != len(ms) {
		t.Fatalf("%d mutants after an unrelated edit, want %d", len(ms2), len(ms))
	}
	for i := range ms {
		if ms[i].Key() != ms2[i].Key() || ms[i].Line == ms2[i].Line {
			t.Errorf("mutant %d: key %v then %v, lines %d then %d; want the same key on another line", i, ms[i].Key(), ms2[i].Key(), ms[i].Line, ms2[i].Line)
		}
	}
	if got, want := ms[0].String(), "solutions/unit09/x.go:6: arithmetic-base: g(a, 1) + g(a, 1) -> g(a, 1) - g(a, 1) (in func T.M)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
