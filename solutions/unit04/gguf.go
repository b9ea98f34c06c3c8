package unit04

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/llmforge/forge/unit00"
)

// GGUF metadata value types.
const (
	ggufUint8   = 0
	ggufInt8    = 1
	ggufUint16  = 2
	ggufInt16   = 3
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
	ggufUint64  = 10
	ggufInt64   = 11
	ggufFloat64 = 12
)

// LoadVocab reads the tokenizer metadata of the GGUF file at path. An
// error opening the file is returned wrapped, naming the path, so that
// errors.Is finds its cause (fs.ErrNotExist for a missing file).
func LoadVocab(path string) (*Vocab, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return ReadVocab(f, fi.Size(), path)
}

// ReadVocab reads the header and metadata of a GGUF file of size bytes from
// r and returns its vocabulary; it stops before the tensor infos, so it
// reads a model file's first few megabytes, not its weights. Every count and
// length is checked against the bytes left before it is used, so a corrupt
// or hostile file gets an error naming the field and its byte offset
// (wrapping unit00.ErrTruncated, ErrInvalid or ErrUnsupported), never a
// panic or a huge allocation. source names the input in errors. A token id
// (bos, eos, unknown) may be stored in any integer type; a negative one, or
// one past int32, is ErrInvalid at the start of its entry, as a tokenizer
// key's value of the wrong type is.
func ReadVocab(r io.Reader, size int64, source string) (*Vocab, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 1<<16), size: size, source: source}
	magic, err := d.u32("magic")
	if err != nil {
		return nil, err
	}
	if magic != 0x46554747 {
		return nil, d.failAt(0, "magic", unit00.ErrInvalid, "not a GGUF file (magic %#08x)", magic)
	}
	version, err := d.u32("version")
	if err != nil {
		return nil, err
	}
	if version != 2 && version != 3 {
		return nil, d.failAt(4, "version", unit00.ErrUnsupported, "GGUF version %d (this reader knows 2 and 3)", version)
	}
	if _, err := d.u64("tensor_count"); err != nil {
		return nil, err
	}
	nkv, err := d.count("metadata_kv_count", 8+4) // a key length and a type at least
	if err != nil {
		return nil, err
	}
	v := &Vocab{BOS: -1, EOS: -1, UNK: -1}
	seen := map[string]bool{}
	var addBOS, addSpace *bool
	for i := uint64(0); i < nkv; i++ {
		at := d.off
		key, err := d.str(fmt.Sprintf("key of metadata entry %d", i))
		if err != nil {
			return nil, err
		}
		if key == "" || seen[key] {
			return nil, d.failAt(at, fmt.Sprintf("metadata entry %d", i), unit00.ErrInvalid, "empty or duplicate key %q", key)
		}
		seen[key] = true
		typ, err := d.u32(key + ": type")
		if err != nil {
			return nil, err
		}
		val, err := d.value(key, typ, wanted(key))
		if err != nil {
			return nil, err
		}
		if err := v.set(key, val, &addBOS, &addSpace); err != nil {
			return nil, d.failAt(at, key, unit00.ErrInvalid, "%v", err)
		}
	}
	v.AddBOS = v.Model == "llama"
	if addBOS != nil {
		v.AddBOS = *addBOS
	}
	v.AddSpacePrefix = v.Model == "llama"
	if addSpace != nil {
		v.AddSpacePrefix = *addSpace
	}
	return v, v.check(source)
}

// wanted reports whether a key's value is kept (the rest is skipped).
func wanted(key string) bool {
	return len(key) > len("tokenizer.ggml.") && key[:len("tokenizer.ggml.")] == "tokenizer.ggml."
}

// set stores one tokenizer key in v.
func (v *Vocab) set(key string, val any, addBOS, addSpace **bool) error {
	var ok bool
	switch key {
	case "tokenizer.ggml.model":
		v.Model, ok = val.(string)
	case "tokenizer.ggml.pre":
		v.Pre, ok = val.(string)
	case "tokenizer.ggml.tokens":
		v.Tokens, ok = val.([]string)
	case "tokenizer.ggml.merges":
		v.Merges, ok = val.([]string)
	case "tokenizer.ggml.scores":
		v.Scores, ok = val.([]float32)
	case "tokenizer.ggml.token_type":
		v.Types, ok = val.([]int32)
	case "tokenizer.ggml.bos_token_id":
		v.BOS, ok = tokenID(val)
	case "tokenizer.ggml.eos_token_id":
		v.EOS, ok = tokenID(val)
	case "tokenizer.ggml.unknown_token_id":
		v.UNK, ok = tokenID(val)
	case "tokenizer.ggml.add_bos_token":
		var b bool
		b, ok = val.(bool)
		*addBOS = &b
	case "tokenizer.ggml.add_eos_token":
		v.AddEOS, ok = val.(bool)
	case "tokenizer.ggml.add_space_prefix":
		var b bool
		b, ok = val.(bool)
		*addSpace = &b
	default:
		return nil // a key this tokenizer does not use
	}
	if !ok {
		return fmt.Errorf("value of type %T", val)
	}
	return nil
}

// tokenID accepts the integer types writers use for token ids.
func tokenID(val any) (int, bool) {
	switch x := val.(type) {
	case uint8:
		return int(x), true
	case uint16:
		return int(x), true
	case uint32:
		return int(x), true
	case uint64:
		return int(x), x < math.MaxInt32
	case int8:
		return int(x), x >= 0
	case int16:
		return int(x), x >= 0
	case int32:
		return int(x), x >= 0
	case int64:
		return int(x), x >= 0 && x < math.MaxInt32
	}
	return 0, false
}

// check validates the vocabulary as a whole.
func (v *Vocab) check(source string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: tokenizer metadata: %s: %w", source, fmt.Sprintf(format, args...), unit00.ErrInvalid)
	}
	switch {
	case v.Model != "gpt2" && v.Model != "llama":
		return fmt.Errorf("%s: tokenizer.ggml.model %q (this tokenizer knows gpt2 and llama): %w", source, v.Model, unit00.ErrUnsupported)
	case len(v.Tokens) == 0:
		return bad("no tokenizer.ggml.tokens")
	case v.Scores != nil && len(v.Scores) != len(v.Tokens):
		return bad("%d scores for %d tokens", len(v.Scores), len(v.Tokens))
	case v.Types != nil && len(v.Types) != len(v.Tokens):
		return bad("%d token types for %d tokens", len(v.Types), len(v.Tokens))
	}
	for _, id := range []int{v.BOS, v.EOS, v.UNK} {
		if id >= len(v.Tokens) {
			return bad("token id %d beyond the %d tokens", id, len(v.Tokens))
		}
	}
	return nil
}

// decoder reads little-endian GGUF values, tracking the byte offset.
type decoder struct {
	r      *bufio.Reader
	off    int64
	size   int64
	source string
	buf    [8]byte
}

func (d *decoder) fail(field string, kind error, format string, args ...any) error {
	return d.failAt(d.off, field, kind, format, args...)
}

func (d *decoder) failAt(off int64, field string, kind error, format string, args ...any) error {
	return unit00.InputErrorf(d.source, off, field, kind, format, args...)
}

// read fills the first n bytes of d.buf.
func (d *decoder) read(field string, n int) ([]byte, error) {
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		return nil, d.fail(field, unit00.ErrTruncated, "need %d bytes: %v", n, err)
	}
	d.off += int64(n)
	return d.buf[:n], nil
}

func (d *decoder) u32(field string) (uint32, error) {
	b, err := d.read(field, 4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64(field string) (uint64, error) {
	b, err := d.read(field, 8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a u64 count of items of at least minSize bytes each and
// rejects one the rest of the file could not hold.
func (d *decoder) count(field string, minSize int64) (uint64, error) {
	at := d.off
	n, err := d.u64(field)
	if err != nil {
		return 0, err
	}
	if left := d.size - d.off; n > uint64(left/minSize) {
		return 0, d.failAt(at, field, unit00.ErrInvalid, "count %d cannot fit in the %d bytes left", n, left)
	}
	return n, nil
}

// str reads a GGUF string.
func (d *decoder) str(field string) (string, error) {
	n, err := d.count(field+": length", 1)
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		return "", d.fail(field, unit00.ErrTruncated, "need %d bytes: %v", n, err)
	}
	d.off += int64(n)
	return string(b), nil
}

// scalarSize is the encoded size of a non-string scalar type, and false
// for any other type.
func scalarSize(typ uint32) (int, bool) {
	switch typ {
	case ggufUint8, ggufInt8, ggufBool:
		return 1, true
	case ggufUint16, ggufInt16:
		return 2, true
	case ggufUint32, ggufInt32, ggufFloat32:
		return 4, true
	case ggufUint64, ggufInt64, ggufFloat64:
		return 8, true
	}
	return 0, false
}

// value reads one value of type typ. When keep is false it is only
// skipped (nil is returned), so large unused arrays cost no memory.
func (d *decoder) value(key string, typ uint32, keep bool) (any, error) {
	switch typ {
	case ggufString:
		return d.str(key)
	case ggufArray:
		return d.array(key, keep)
	}
	size, ok := scalarSize(typ)
	if !ok {
		// The type was the last field read: point at its start.
		return nil, d.failAt(d.off-4, key+": type", unit00.ErrUnsupported, "unknown value type %d", typ)
	}
	b, err := d.read(key, size)
	if err != nil {
		return nil, err
	}
	return scalar(typ, b), nil
}

func scalar(typ uint32, b []byte) any {
	le := binary.LittleEndian
	switch typ {
	case ggufUint8:
		return b[0]
	case ggufInt8:
		return int8(b[0])
	case ggufBool:
		return b[0] != 0
	case ggufUint16:
		return le.Uint16(b)
	case ggufInt16:
		return int16(le.Uint16(b))
	case ggufUint32:
		return le.Uint32(b)
	case ggufInt32:
		return int32(le.Uint32(b))
	case ggufFloat32:
		return math.Float32frombits(le.Uint32(b))
	case ggufUint64:
		return le.Uint64(b)
	case ggufInt64:
		return int64(le.Uint64(b))
	}
	return math.Float64frombits(le.Uint64(b))
}

// array reads an array value. Arrays of strings, float32 and int32 (the
// tokenizer's) are returned as Go slices; other arrays are skipped.
func (d *decoder) array(key string, keep bool) (any, error) {
	elem, err := d.u32(key + ": element type")
	if err != nil {
		return nil, err
	}
	if elem == ggufArray {
		return nil, d.failAt(d.off-4, key+": element type", unit00.ErrUnsupported, "arrays of arrays")
	}
	minSize := int64(8) // a string's length
	if elem != ggufString {
		size, ok := scalarSize(elem)
		if !ok {
			return nil, d.failAt(d.off-4, key+": element type", unit00.ErrUnsupported, "unknown value type %d", elem)
		}
		minSize = int64(size)
	}
	n, err := d.count(key+": element count", minSize)
	if err != nil {
		return nil, err
	}
	switch {
	case keep && elem == ggufString:
		out := make([]string, n)
		for i := range out {
			if out[i], err = d.str(fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	case keep && elem == ggufFloat32:
		out := make([]float32, n)
		for i := range out {
			b, err := d.read(key, 4)
			if err != nil {
				return nil, err
			}
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b))
		}
		return out, nil
	case keep && elem == ggufInt32:
		out := make([]int32, n)
		for i := range out {
			b, err := d.read(key, 4)
			if err != nil {
				return nil, err
			}
			out[i] = int32(binary.LittleEndian.Uint32(b))
		}
		return out, nil
	}
	for i := uint64(0); i < n; i++ {
		if _, err := d.value(fmt.Sprintf("%s[%d]", key, i), elem, false); err != nil {
			return nil, err
		}
	}
	return nil, nil
}
