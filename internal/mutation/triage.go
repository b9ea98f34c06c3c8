package mutation

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// TriageEntry records one equivalent mutant: one that no test can kill
// because it does not change what the code does. It lives in
// ci/mutation/unitNN.txt as one line of seven tab-separated fields:
//
//	file	func	operator	original	mutated	occurrence	reason
//
// for example
//
//	tensor.go	Tensor.At	conditionals-boundary	i < 0	i <= 0	0	i == 0 is refused one line later
//
// Lines starting with # and blank lines are comments. `forge mutation
// --triage` prints the survivors in this form, reason left to write.
type TriageEntry struct {
	Key    Key
	Reason string
	Line   int // in the triage file
}

// TriageLine is the entry for m in the triage file's format.
func TriageLine(m Mutant, reason string) string {
	k := m.Key()
	return strings.Join([]string{k.File, k.Func, string(k.Op), k.Orig, k.Mut, strconv.Itoa(k.Occ), reason}, "\t")
}

// ParseTriage reads a triage file's text; name is for error messages.
func ParseTriage(name string, data []byte) ([]TriageEntry, error) {
	var out []TriageEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("%s:%d: want 7 tab-separated fields (file, func, operator, original, mutated, occurrence, reason), got %d", name, n, len(f))
		}
		occ, err := strconv.Atoi(strings.TrimSpace(f[5]))
		if err != nil || occ < 0 {
			return nil, fmt.Errorf("%s:%d: occurrence %q is not a count (0 for the first)", name, n, f[5])
		}
		op := Operator(strings.TrimSpace(f[2]))
		if !knownOperator(op) {
			return nil, fmt.Errorf("%s:%d: unknown operator %q", name, n, f[2])
		}
		if strings.TrimSpace(f[6]) == "" {
			return nil, fmt.Errorf("%s:%d: an equivalent mutant needs a reason", name, n)
		}
		out = append(out, TriageEntry{
			Key: Key{
				File: strings.TrimSpace(f[0]), Func: strings.TrimSpace(f[1]), Op: op,
				Orig: collapse(f[3]), Mut: collapse(f[4]), Occ: occ,
			},
			Reason: strings.TrimSpace(f[6]),
			Line:   n,
		})
	}
	return out, sc.Err()
}

// LoadTriage reads a triage file; a missing file is no entries.
func LoadTriage(path string) ([]TriageEntry, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseTriage(path, data)
}

// Triage marks the mutants that entries name as equivalent and returns the
// entries that match no mutant (stale: the code changed under them).
func Triage(ms []Mutant, entries []TriageEntry) (equivalent map[int]string, stale []TriageEntry) {
	byKey := map[Key]int{}
	for i, m := range ms {
		byKey[m.Key()] = i
	}
	equivalent = map[int]string{}
	for _, e := range entries {
		i, ok := byKey[e.Key]
		if !ok {
			stale = append(stale, e)
			continue
		}
		equivalent[i] = e.Reason
	}
	return equivalent, stale
}

func knownOperator(op Operator) bool {
	for _, o := range Operators {
		if o == op {
			return true
		}
	}
	return false
}
