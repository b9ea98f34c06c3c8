package oracle

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// GGUFMetadata reads the key–value metadata of a trusted GGUF file (test
// data): it panics on anything malformed. Values are Go values: unsigned
// and signed integers as uint64 and int64, floats as float64, bool, string,
// and arrays as []any.
func GGUFMetadata(path string) map[string]any {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	r := &ggufReader{data: data}
	if string(r.take(4)) != "GGUF" {
		panic(path + ": not a GGUF file")
	}
	if v := r.u32(); v != 3 && v != 2 {
		panic(fmt.Sprintf("%s: GGUF version %d", path, v))
	}
	r.take(8) // tensor count
	n := r.u64()
	md := make(map[string]any, n)
	for i := uint64(0); i < n; i++ {
		key := r.str()
		md[key] = r.value(r.u32())
	}
	return md
}

type ggufReader struct {
	data []byte
	off  int
}

func (r *ggufReader) take(n int) []byte {
	b := r.data[r.off : r.off+n]
	r.off += n
	return b
}

func (r *ggufReader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *ggufReader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *ggufReader) str() string { return string(r.take(int(r.u64()))) }

func (r *ggufReader) value(typ uint32) any {
	switch typ {
	case 0:
		return uint64(r.take(1)[0])
	case 1:
		return int64(int8(r.take(1)[0]))
	case 2:
		return uint64(binary.LittleEndian.Uint16(r.take(2)))
	case 3:
		return int64(int16(binary.LittleEndian.Uint16(r.take(2))))
	case 4:
		return uint64(r.u32())
	case 5:
		return int64(int32(r.u32()))
	case 6:
		return float64(math.Float32frombits(r.u32()))
	case 7:
		return r.take(1)[0] != 0
	case 8:
		return r.str()
	case 9:
		elem, n := r.u32(), r.u64()
		out := make([]any, n)
		for i := range out {
			out[i] = r.value(elem)
		}
		return out
	case 10:
		return r.u64()
	case 11:
		return int64(r.u64())
	case 12:
		return math.Float64frombits(r.u64())
	}
	panic(fmt.Sprintf("GGUF value type %d", typ))
}
