package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/llmforge/forge/unit10"
)

var inspectCommand = &command{
	name:     "inspect",
	synopsis: "[--json] MODEL.gguf",
	summary:  "a GGUF file's metadata and tensor table",
	setup:    setupInspect,
	help: `
Prints the GGUF version, the alignment and where the data section starts;
every metadata entry with its type and value (strings cut at 64
characters, arrays of more than 8 elements summarised as their element
type, count and first 5 elements); then every tensor: name, type, shape
(ne[0], the contiguous dimension, first, as GGUF stores it: a weight
matrix [out, in] reads "in × out"), size and offset in the data section;
and the totals per type. The file is memory-mapped, not read.

With --json, one object: {"file", "size", "version", "alignment",
"data_offset", "metadata": [{"key", "type", "value"} or for arrays
{"key", "type": "array", "elem", "count", "head": [first 8]}], "tensors":
[{"name", "type", "shape", "bytes", "offset"}], "totals": {"tensors",
"params", "bytes", "types": {"Q4_K": 155, ...}}}.`,
}

type inspectOptions struct {
	model string
	json  bool
}

func setupInspect(fs *flagSet) func(*env) error {
	o := &inspectOptions{}
	fs.str(&o.model, "m,model", "FILE", "the file, instead of the argument")
	fs.boolean(&o.json, "json", "print one JSON object")
	return func(e *env) error { return doInspect(e, o) }
}

type inspectJSON struct {
	File       string       `json:"file"`
	Size       int64        `json:"size"`
	Version    uint32       `json:"version"`
	Alignment  int          `json:"alignment"`
	DataOffset int64        `json:"data_offset"`
	Metadata   []kvJSON     `json:"metadata"`
	Tensors    []tensorJSON `json:"tensors"`
	Totals     totalsJSON   `json:"totals"`
}

type kvJSON struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value any    `json:"value,omitempty"`
	Elem  string `json:"elem,omitempty"`
	Count *int   `json:"count,omitempty"`
	Head  any    `json:"head,omitempty"`
}

type tensorJSON struct {
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Shape  []uint64 `json:"shape"`
	Bytes  uint64   `json:"bytes"`
	Offset uint64   `json:"offset"`
}

type totalsJSON struct {
	Tensors int            `json:"tensors"`
	Params  uint64         `json:"params"`
	Bytes   uint64         `json:"bytes"`
	Types   map[string]int `json:"types"`
}

func doInspect(e *env, o *inspectOptions) error {
	path := o.model
	switch {
	case path != "" && len(e.args) > 0:
		return usagef("give the file as -m FILE or as the argument, not both")
	case len(e.args) > 1:
		return usagef("one file at a time, got %d arguments", len(e.args))
	case len(e.args) == 1:
		path = e.args[0]
	case path == "":
		return usagef("no file: llm inspect MODEL.gguf")
	}
	f, err := unit10.Open(path)
	if err != nil {
		return badInput(err)
	}
	defer f.Close()
	size := int64(len(f.Data))
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	tot := totalsJSON{Tensors: len(f.Tensors), Types: map[string]int{}}
	tensors := make([]tensorJSON, len(f.Tensors))
	typeBytes := map[string]uint64{}
	for i, t := range f.Tensors {
		b, err := t.Bytes()
		if err != nil {
			return badInput(fmt.Errorf("%s: tensor %s: %w", path, t.Name, err))
		}
		tensors[i] = tensorJSON{Name: t.Name, Type: t.Type.String(), Shape: t.Dims, Bytes: b, Offset: t.Offset}
		tot.Params += elements(t)
		tot.Bytes += b
		tot.Types[t.Type.String()]++
		typeBytes[t.Type.String()] += b
	}
	if o.json {
		out := inspectJSON{File: path, Size: size, Version: f.Version, Alignment: f.Alignment, DataOffset: f.DataOffset,
			Metadata: make([]kvJSON, len(f.KV)), Tensors: tensors, Totals: tot}
		for i, kv := range f.KV {
			out.Metadata[i] = kvToJSON(kv)
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}

	w := bufio.NewWriter(e.stdout)
	fmt.Fprintf(w, "%s: GGUF version %d, %s, alignment %d, data section at byte %d\n", path, f.Version, formatBytes(size), f.Alignment, f.DataOffset)
	fmt.Fprintf(w, "\nmetadata: %d entries\n", len(f.KV))
	keyW := 0
	for _, kv := range f.KV {
		keyW = max(keyW, min(len(kv.Key), 44))
	}
	for _, kv := range f.KV {
		typ, val := formatKV(kv)
		fmt.Fprintf(w, "  %-*s  %-8s  %s\n", keyW, kv.Key, typ, val)
	}
	fmt.Fprintf(w, "\ntensors: %d\n", len(f.Tensors))
	if len(f.Tensors) > 0 {
		nameW, shapeW := len("name"), len("shape")
		for _, t := range tensors {
			nameW = max(nameW, len(t.Name))
			shapeW = max(shapeW, utf8.RuneCountInString(formatShape(t.Shape)))
		}
		fmt.Fprintf(w, "  %-*s  %-5s  %s  %12s  %12s\n", nameW, "name", "type", padRunes("shape", shapeW), "bytes", "offset")
		for _, t := range tensors {
			fmt.Fprintf(w, "  %-*s  %-5s  %s  %12s  %12d\n", nameW, t.Name, t.Type, padRunes(formatShape(t.Shape), shapeW), formatBytes(int64(t.Bytes)), t.Offset)
		}
	}
	fmt.Fprintf(w, "\ntotal: %d tensors, %s parameters, %s", tot.Tensors, formatCount(int64(tot.Params)), formatBytes(int64(tot.Bytes)))
	if tot.Params > 0 {
		fmt.Fprintf(w, " (%.2f bits per parameter)", float64(tot.Bytes)*8/float64(tot.Params))
	}
	fmt.Fprintln(w)
	var types []string
	for t := range tot.Types {
		types = append(types, t)
	}
	slices.SortFunc(types, func(a, b string) int { return cmp.Or(cmp.Compare(typeBytes[b], typeBytes[a]), cmp.Compare(a, b)) })
	for _, t := range types {
		fmt.Fprintf(w, "  %-5s  %4d tensors  %12s\n", t, tot.Types[t], formatBytes(int64(typeBytes[t])))
	}
	return w.Flush()
}

// elements is a tensor's element count.
func elements(t unit10.TensorInfo) uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// formatShape writes dims ne[0] first: "2048 × 32000".
func formatShape(dims []uint64) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, " × ")
}

func padRunes(s string, n int) string {
	return s + strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0))
}

// typeNames are GGUF's value types as gguf-py names them.
var typeNames = map[unit10.ValueType]string{
	unit10.TypeUint8: "uint8", unit10.TypeInt8: "int8", unit10.TypeUint16: "uint16", unit10.TypeInt16: "int16",
	unit10.TypeUint32: "uint32", unit10.TypeInt32: "int32", unit10.TypeFloat32: "float32", unit10.TypeBool: "bool",
	unit10.TypeString: "string", unit10.TypeArray: "array", unit10.TypeUint64: "uint64", unit10.TypeInt64: "int64",
	unit10.TypeFloat64: "float64",
}

func typeName(t unit10.ValueType) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

const (
	shortArray = 8  // arrays up to this long are shown whole
	arrayHead  = 5  // elements shown of a longer one
	longString = 64 // characters shown of a string
)

// formatKV returns an entry's type and value as inspect's table shows them.
func formatKV(kv unit10.KV) (string, string) {
	if kv.Type != unit10.TypeArray {
		return typeName(kv.Type), formatScalar(kv.Value, true)
	}
	v := reflect.ValueOf(kv.Value)
	if v.Kind() != reflect.Slice {
		return "array", fmt.Sprint(kv.Value)
	}
	n := v.Len()
	shown := n
	if n > shortArray {
		shown = arrayHead
	}
	parts := make([]string, shown)
	for i := range shown {
		parts[i] = formatScalar(v.Index(i).Interface(), true)
	}
	s := fmt.Sprintf("[%s × %d] %s", typeName(kv.Elem), n, strings.Join(parts, ", "))
	if shown < n {
		s += ", …"
	}
	return "array", s
}

// formatScalar shows a value; strings quoted and, if cut, cut at
// longString characters with their length.
func formatScalar(x any, cut bool) string {
	s, ok := x.(string)
	if !ok {
		return fmt.Sprint(x)
	}
	if cut && utf8.RuneCountInString(s) > longString {
		r := []rune(s)
		return fmt.Sprintf("%s… (%d bytes)", quote(string(r[:longString])), len(s))
	}
	return quote(s)
}

func kvToJSON(kv unit10.KV) kvJSON {
	j := kvJSON{Key: kv.Key, Type: typeName(kv.Type)}
	if kv.Type != unit10.TypeArray {
		j.Value = jsonScalar(kv.Value) // omitempty keeps "", 0 and false: the interface is not nil
		return j
	}
	j.Elem = typeName(kv.Elem)
	v := reflect.ValueOf(kv.Value)
	if v.Kind() == reflect.Slice {
		n := v.Len()
		j.Count = &n
		head := make([]any, min(n, shortArray)) // not the slice itself: a []uint8 would encode as base64
		for i := range head {
			head[i] = jsonScalar(v.Index(i).Interface())
		}
		j.Head = head
	}
	return j
}

// jsonScalar makes a metadata value encodable: a NaN or infinite float
// (JSON has none) becomes its name as a string.
func jsonScalar(x any) any {
	var f float64
	switch v := x.(type) {
	case float32:
		f = float64(v)
	case float64:
		f = v
	default:
		return x
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f)
	}
	return x
}
