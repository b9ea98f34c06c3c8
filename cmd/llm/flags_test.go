package main

import (
	"fmt"
	"strings"
	"testing"
)

// testFlags declares one flag of each kind.
func testFlags() (*flagSet, *struct {
	model string
	stops []string
	json  bool
	n     int
	p     float64
	ids   []int
	typ   string
}) {
	v := &struct {
		model string
		stops []string
		json  bool
		n     int
		p     float64
		ids   []int
		typ   string
	}{n: 128, ids: []int{4}}
	fs := newFlagSet("test")
	fs.str(&v.model, "m,model", "FILE", "model")
	fs.strs(&v.stops, "r,reverse-prompt", "TEXT", "stops")
	fs.boolean(&v.json, "json", "json")
	fs.integer(&v.n, "n", "N", "count", atLeast(-1))
	fs.float(&v.p, "top-p", "P", "p", inUnit)
	fs.ints(&v.ids, "t,threads", "N", "threads", atLeast(1))
	fs.choice(&v.typ, "type", "TYPE", "type", []string{"q8_0", "q4_k_m"})
	return fs, v
}

func TestFlagParse(t *testing.T) {
	tests := []struct {
		args []string
		want string // the parsed values, formatted
	}{
		{nil, `model="" stops=[] json=false n=128 p=0 ids=[4] type="" args=[]`},
		{[]string{"-m", "a.gguf", "--json", "x", "-n", "-1"}, `model="a.gguf" stops=[] json=true n=-1 p=0 ids=[4] type="" args=[x]`},
		{[]string{"--model=a.gguf", "-json=false", "--top-p", "0.5"}, `model="a.gguf" stops=[] json=false n=128 p=0.5 ids=[4] type="" args=[]`},
		{[]string{"-model", "b", "--m", "c"}, `model="c" stops=[] json=false n=128 p=0 ids=[4] type="" args=[]`},
		{[]string{"-r", "a", "--reverse-prompt", "b", "-r=c"}, `model="" stops=[a b c] json=false n=128 p=0 ids=[4] type="" args=[]`},
		{[]string{"-t", "1,2", "-t", "8"}, `model="" stops=[] json=false n=128 p=0 ids=[1 2 8] type="" args=[]`},
		{[]string{"--type", "Q4_K_M"}, `model="" stops=[] json=false n=128 p=0 ids=[4] type="q4_k_m" args=[]`},
		{[]string{"-1", "-", "--", "-m", "--json"}, `model="" stops=[] json=false n=128 p=0 ids=[4] type="" args=[-1 - -m --json]`},
		{[]string{"-m", "-x.gguf"}, `model="-x.gguf" stops=[] json=false n=128 p=0 ids=[4] type="" args=[]`},
	}
	for _, tc := range tests {
		fs, v := testFlags()
		if err := fs.parse(tc.args); err != nil {
			t.Errorf("parse %q: %v", tc.args, err)
			continue
		}
		got := fmt.Sprintf("model=%q stops=%v json=%v n=%d p=%g ids=%v type=%q args=%v", v.model, v.stops, v.json, v.n, v.p, v.ids, v.typ, fs.args)
		if got != tc.want {
			t.Errorf("parse %q:\n got %s\nwant %s", tc.args, got, tc.want)
		}
	}
}

func TestFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "unknown flag --nope (llm help test lists the flags)"},
		{[]string{"-x=1"}, "unknown flag -x (llm help test lists the flags)"},
		{[]string{"-m"}, "-m needs a value (FILE)"},
		{[]string{"-n", "1.5"}, "-n 1.5: want an integer"},
		{[]string{"-n", "-2"}, "-n -2: want an integer ≥ -1"},
		{[]string{"--top-p", "2"}, "--top-p 2: want a number in [0, 1]"},
		{[]string{"--top-p", "inf"}, "--top-p inf: want a finite number"},
		{[]string{"--json=2"}, `--json: want true or false, got "2"`},
		{[]string{"-t", "1,,2"}, "-t 1,,2: want a comma-separated list of integers"},
		{[]string{"--type", "q3"}, "--type q3: want one of q8_0, q4_k_m"},
	}
	for _, tc := range tests {
		fs, _ := testFlags()
		err := fs.parse(tc.args)
		if err == nil || err.Error() != tc.want {
			t.Errorf("parse %q: error %v, want %q", tc.args, err, tc.want)
		}
		if ee, ok := err.(*exitError); !ok || ee.status != 2 {
			t.Errorf("parse %q: error %#v is not a usage error (exit status 2)", tc.args, err)
		}
	}
}

func TestFlagHelp(t *testing.T) {
	fs, _ := testFlags()
	fs.parse([]string{"-h", "-m", "x"})
	if !fs.help {
		t.Error("-h did not ask for help")
	}
	var b strings.Builder
	fs.printDefaults(&b)
	for _, want := range []string{"-m, --model FILE", "-r, --reverse-prompt TEXT", "    --json", "-h, --help"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("help\n%s\ndoes not show %q", b.String(), want)
		}
	}
}
