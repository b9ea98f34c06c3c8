package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// A flagSet parses one command's flags the way llama.cpp's tools take
// them: a short and a long name for most (-m, --model), either spelled with
// one or two dashes, the value as the next argument or after "=", flags
// and positional arguments in any order, "--" ending the flags. Every
// error is one line that names the flag as it was typed and says what was
// wanted ("--top-p 2: want a number in [0, 1]").
type flagSet struct {
	cmd   string // the command's name, for messages
	defs  []*flagDef
	index map[string]*flagDef
	args  []string // the positional arguments, in order
	help  bool     // -h or --help was given
}

type flagDef struct {
	names   []string // without dashes; the first short one is shown first
	meta    string   // the value's placeholder in help ("FILE"); "" for a switch
	usage   string
	set     func(value string) error // parses and checks; the error says what is wanted
	seen    bool
	boolean bool
}

func newFlagSet(cmd string) *flagSet {
	return &flagSet{cmd: cmd, index: map[string]*flagDef{}}
}

// add declares a flag under names, a comma-separated list ("m,model").
func (fs *flagSet) add(names, meta, usage string, boolean bool, set func(string) error) *flagDef {
	d := &flagDef{names: strings.Split(names, ","), meta: meta, usage: usage, set: set, boolean: boolean}
	for _, n := range d.names {
		if _, dup := fs.index[n]; dup || n == "h" || n == "help" {
			panic("flag " + n + " declared twice") // a programming error, caught by the tests
		}
		fs.index[n] = d
	}
	fs.defs = append(fs.defs, d)
	return d
}

// given reports whether the flag called name (any of its names) was set on
// the command line.
func (fs *flagSet) given(name string) bool {
	d := fs.index[name]
	return d != nil && d.seen
}

// parse reads args. It stops at the first error.
func (fs *flagSet) parse(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			fs.args = append(fs.args, args[i+1:]...)
			return nil
		}
		if !isFlag(a) {
			fs.args = append(fs.args, a)
			continue
		}
		typed, value, hasValue := strings.Cut(a, "=")
		name := strings.TrimLeft(typed, "-")
		if name == "h" || name == "help" {
			fs.help = true
			continue
		}
		d := fs.index[name]
		if d == nil {
			return usagef("unknown flag %s (llm help %s lists the flags)", typed, fs.cmd)
		}
		switch {
		case d.boolean && !hasValue:
			value = "true"
		case d.boolean:
			b, err := strconv.ParseBool(value)
			if err != nil {
				return usagef("%s: want true or false, got %q", typed, value)
			}
			value = strconv.FormatBool(b)
		case !hasValue:
			if i+1 >= len(args) {
				return usagef("%s needs a value (%s)", typed, d.meta)
			}
			i++
			value = args[i]
		}
		if err := d.set(value); err != nil {
			if d.boolean {
				return usagef("%s: %v", typed, err)
			}
			return usagef("%s %s: %v", typed, value, err)
		}
		d.seen = true
	}
	return nil
}

// isFlag tells a flag from a positional argument: "-" alone and negative
// numbers ("-1") are positional.
func isFlag(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	c := strings.TrimLeft(a, "-")
	return c != "" && !(c[0] >= '0' && c[0] <= '9') && c[0] != '.'
}

// printDefaults writes the flag list of a command's help.
func (fs *flagSet) printDefaults(w io.Writer) {
	for _, d := range fs.defs {
		var names []string
		for _, n := range d.names {
			if len(n) == 1 {
				names = append(names, "-"+n)
			} else {
				names = append(names, "--"+n)
			}
		}
		head := strings.Join(names, ", ")
		if len(d.names[0]) > 1 {
			head = "    " + head
		}
		if d.meta != "" {
			head += " " + d.meta
		}
		if len(head) > 26 {
			fmt.Fprintf(w, "  %s\n  %-26s  %s\n", head, "", d.usage)
		} else {
			fmt.Fprintf(w, "  %-26s  %s\n", head, d.usage)
		}
	}
	fmt.Fprintf(w, "  %-26s  %s\n", "-h, --help", "show this help")
}

// The typed declarations. check functions return "" for a good value and
// otherwise what is wanted ("want a number in [0, 1]").

func (fs *flagSet) str(p *string, names, meta, usage string) {
	fs.add(names, meta, usage, false, func(v string) error { *p = v; return nil })
}

// strs is a repeatable flag: each use adds a value.
func (fs *flagSet) strs(p *[]string, names, meta, usage string) {
	fs.add(names, meta, usage, false, func(v string) error { *p = append(*p, v); return nil })
}

func (fs *flagSet) boolean(p *bool, names, usage string) {
	fs.add(names, "", usage, true, func(v string) error { *p = v == "true"; return nil })
}

func (fs *flagSet) integer(p *int, names, meta, usage string, check func(int) string) {
	fs.add(names, meta, usage, false, func(v string) error {
		n, err := parseInt(v)
		if err != nil {
			return err
		}
		if msg := check(n); msg != "" {
			return fmt.Errorf("%s", msg)
		}
		*p = n
		return nil
	})
}

// ints is a repeatable flag of comma-separated integers ("-t 1,2 -t 4"):
// the first use replaces the default, later ones add to it.
func (fs *flagSet) ints(p *[]int, names, meta, usage string, check func(int) string) {
	first := true
	fs.add(names, meta, usage, false, func(v string) error {
		var got []int
		for _, f := range strings.Split(v, ",") {
			n, err := parseInt(strings.TrimSpace(f))
			if err != nil {
				return fmt.Errorf("want a comma-separated list of integers")
			}
			if msg := check(n); msg != "" {
				return fmt.Errorf("%s", msg)
			}
			got = append(got, n)
		}
		if first {
			*p, first = nil, false
		}
		*p = append(*p, got...)
		return nil
	})
}

func (fs *flagSet) float(p *float64, names, meta, usage string, check func(float64) string) {
	fs.add(names, meta, usage, false, func(v string) error {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("want a finite number")
		}
		if msg := check(x); msg != "" {
			return fmt.Errorf("%s", msg)
		}
		*p = x
		return nil
	})
}

// choice is a flag whose value is one of choices (compared without case).
func (fs *flagSet) choice(p *string, names, meta, usage string, choices []string) {
	fs.add(names, meta, usage, false, func(v string) error {
		for _, c := range choices {
			if strings.EqualFold(v, c) {
				*p = c
				return nil
			}
		}
		return fmt.Errorf("want one of %s", strings.Join(choices, ", "))
	})
}

func parseInt(v string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 0)
	if err != nil {
		return 0, fmt.Errorf("want an integer")
	}
	return int(n), nil
}

// Checks shared by several commands.

func atLeast(lo int) func(int) string {
	return func(n int) string {
		if n < lo {
			return fmt.Sprintf("want an integer ≥ %d", lo)
		}
		return ""
	}
}

func inUnit(x float64) string {
	if x < 0 || x > 1 {
		return "want a number in [0, 1]"
	}
	return ""
}

func anyFloat(float64) string { return "" }
