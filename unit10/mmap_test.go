package unit10

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/llmforge/forge/unit00"
)

// mappingsOf returns the address ranges of the mappings of the file at
// path in this process, from /proc/self/maps; ok is false where there is
// no such file (every OS but Linux), and the callers then skip that check.
func mappingsOf(t *testing.T, path string) (ranges [][2]uintptr, ok bool) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return nil, false
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil, false
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	for _, line := range strings.Split(string(maps), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 6 || strings.Join(fields[5:], " ") != path {
			continue
		}
		lo, hi, _ := strings.Cut(fields[0], "-")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("cannot parse /proc/self/maps line %q", line)
		}
		ranges = append(ranges, [2]uintptr{uintptr(a), uintptr(b)})
	}
	return ranges, true
}

// pointsInto reports whether p lies in b's bytes.
func pointsInto(p unsafe.Pointer, b []byte) bool {
	if len(b) == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(&b[0]))
	return uintptr(p) >= lo && uintptr(p) < lo+uintptr(len(b))
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestC10_2_Open(t *testing.T) {
	gf := goodFile()
	path := writeTemp(t, "good.gguf", gf.data)
	f, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%s), a well-formed file: %v", path, err)
	}
	want, err := Parse(gf.data, path)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if f.Version != want.Version || f.Alignment != want.Alignment || f.DataOffset != want.DataOffset ||
		!reflect.DeepEqual(f.KV, want.KV) || !reflect.DeepEqual(f.Tensors, want.Tensors) {
		t.Errorf("Open gives Version %d, Alignment %d, DataOffset %d, %d KVs, %d tensors; Parse of the same bytes gives %d, %d, %d, %d, %d (or the KVs or infos differ)",
			f.Version, f.Alignment, f.DataOffset, len(f.KV), len(f.Tensors), want.Version, want.Alignment, want.DataOffset, len(want.KV), len(want.Tensors))
	}
	if !bytes.Equal(f.Data, gf.data) {
		t.Fatalf("File.Data holds %d bytes that differ from the file's %d", len(f.Data), len(gf.data))
	}
	if ranges, ok := mappingsOf(t, path); ok {
		p := uintptr(unsafe.Pointer(&f.Data[0]))
		mapped := false
		for _, r := range ranges {
			mapped = mapped || (p >= r[0] && p < r[1])
		}
		if !mapped {
			t.Errorf("File.Data (at %#x) is not a mapping of %s (mappings %x): Open must memory-map the file with unix.Mmap, not read it", p, path, ranges)
		}
	}
	for i, info := range f.Tensors {
		_, view, err := f.Tensor(info.Name)
		if err != nil {
			t.Fatalf("Tensor(%q): %v", info.Name, err)
		}
		start := f.DataOffset + int64(info.Offset)
		if !bytes.Equal(view, gf.tensors[i]) || &view[0] != &f.Data[start] {
			t.Errorf("Tensor(%q) is not the view f.Data[%d:%d] of the mapping", info.Name, start, start+int64(len(gf.tensors[i])))
		}
	}
	// Strings must not point into the mapping: after Close it is gone.
	for _, kv := range f.KV {
		ss := []string{kv.Key}
		if s, ok := kv.Value.(string); ok {
			ss = append(ss, s)
		}
		if s, ok := kv.Value.([]string); ok {
			ss = append(ss, s...)
		}
		for _, s := range ss {
			if len(s) > 0 && pointsInto(unsafe.Pointer(unsafe.StringData(s)), f.Data) {
				t.Fatalf("KV %q: the string %q points into File.Data; after Close unmaps the file it would point at nothing. Copy strings (string(b) does)", kv.Key, s)
			}
		}
	}

	if err := f.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if f.Data != nil {
		t.Errorf("after Close, File.Data has %d bytes; set it to nil so nothing reads the unmapped memory", len(f.Data))
	}
	if _, _, err := f.Tensor(gf.infos[0].Name); err == nil {
		t.Errorf("Tensor(%q) after Close returned no error", gf.infos[0].Name)
	}
	if name, err := f.String("general.name"); err != nil || name != "tiny ünïcode ▁model" {
		t.Errorf("String(general.name) after Close = %q, %v; the metadata stays valid after Close", name, err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("a second Close returned %v; Close is idempotent (nil the second time)", err)
	}
	if ranges, ok := mappingsOf(t, path); ok && len(ranges) > 0 {
		t.Errorf("after Close, %s is still mapped at %x: Close must unmap it", path, ranges)
	}

	t.Run("Close of a parsed file", func(t *testing.T) {
		f, err := Parse(bytes.Clone(gf.data), "good.gguf")
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil || f.Data != nil {
			t.Errorf("Close of a File from Parse (no mapping): %v, Data %d bytes; want nil and nil Data", err, len(f.Data))
		}
		if err := f.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

func TestC10_2_OpenErrors(t *testing.T) {
	gf := goodFile()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.gguf")
	if f, err := Open(missing); f != nil || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file = %v, %v; want nil and an error wrapping fs.ErrNotExist", f, err)
	}
	if f, err := Open(dir); f != nil || err == nil {
		t.Errorf("Open of a directory = %v, %v; want an error", f, err)
	}
	files := []struct {
		name string
		data []byte
		kind error // nil: ErrTruncated or ErrInvalid
	}{
		{"empty.gguf", nil, unit00.ErrTruncated},
		{"half.gguf", gf.data[:len(gf.data)/2], nil},
		{"no-last-byte.gguf", gf.data[:len(gf.data)-1], nil},
		{"magic.gguf", append([]byte("GGML"), gf.data[4:]...), unit00.ErrInvalid},
	}
	for _, c := range files {
		path := writeTemp(t, c.name, c.data)
		for range 100 { // a mapping leaked on each failure would show
			f, err := Open(path)
			if f != nil || err == nil {
				t.Fatalf("Open(%s) = %v, %v; want nil and an error", c.name, f, err)
			}
			var ie *unit00.InputError
			switch {
			case c.kind != nil && !errors.Is(err, c.kind):
				t.Fatalf("Open(%s): error %q does not wrap %v", c.name, err, c.kind)
			case c.kind == nil && !errors.Is(err, unit00.ErrTruncated) && !errors.Is(err, unit00.ErrInvalid):
				t.Fatalf("Open(%s): error %q wraps neither unit00.ErrTruncated nor unit00.ErrInvalid", c.name, err)
			case !errors.As(err, &ie) || ie.Source != path:
				t.Fatalf("Open(%s): error %q is not the *unit00.InputError of Parse with the path as its source", c.name, err)
			}
			if _, perr := Parse(c.data, path); err.Error() != perr.Error() {
				t.Fatalf("Open(%s): error %q; want Parse's own, %q (the unmapping succeeded: nothing to add)", c.name, err, perr)
			}
		}
		if ranges, ok := mappingsOf(t, path); ok && len(ranges) > 0 {
			t.Errorf("after failed Opens, %s is still mapped %d times: unmap before returning a parse error", c.name, len(ranges))
		}
	}
	path := writeTemp(t, "good.gguf", gf.data)
	for range 100 {
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if ranges, ok := mappingsOf(t, path); ok && len(ranges) > 0 {
		t.Errorf("after 100 Open and Close, %s is still mapped %d times", path, len(ranges))
	}
}
