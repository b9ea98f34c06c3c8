package unit04

import (
	"bytes"
	"errors"
	"testing"
	"unicode"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

func TestC4_1_ByteMap(t *testing.T) {
	seen := map[rune]byte{}
	next := rune(256)
	for i := 0; i < 256; i++ {
		b := byte(i)
		r := ByteRune(b)
		selfPrinting := b >= 0x21 && b <= 0x7E || b >= 0xA1 && b <= 0xAC || b >= 0xAE
		switch {
		case selfPrinting && r != rune(b):
			t.Errorf("ByteRune(%#02x) = %U, want %U: printable bytes stand for themselves", b, r, rune(b))
		case !selfPrinting && r != next:
			t.Errorf("ByteRune(%#02x) = %U, want %U: the bytes that do not print take U+0100 on, in byte order", b, r, next)
		}
		if !selfPrinting {
			next++
		}
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			t.Errorf("ByteRune(%#02x) = %U is not a visible character", b, r)
		}
		if prev, dup := seen[r]; dup {
			t.Errorf("ByteRune(%#02x) = ByteRune(%#02x) = %U: the map must be one to one", b, prev, r)
		}
		seen[r] = b
		if back, ok := RuneByte(r); !ok || back != b {
			t.Errorf("RuneByte(ByteRune(%#02x)) = %#02x, %v", b, back, ok)
		}
	}
	if ByteRune(' ') != 'Ġ' || ByteRune('\n') != 'Ċ' || ByteRune('\t') != 'ĉ' {
		t.Errorf("space, newline, tab map to %q %q %q; GPT-2's vocabularies spell them Ġ Ċ ĉ", ByteRune(' '), ByteRune('\n'), ByteRune('\t'))
	}
	for _, r := range []rune{0x20, 0x7F, 0xAD, 0x144, 0x2581, -1} {
		if b, ok := RuneByte(r); ok {
			t.Errorf("RuneByte(%U) = %#02x, true; that character stands for no byte", r, b)
		}
	}
}

func TestC4_1_ByteLevelText(t *testing.T) {
	g := oracle.NewRand(41)
	for n := 0; n < 300; n += 7 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(g.Intn(256))
		}
		s := ToByteLevel(b)
		back, err := FromByteLevel(s)
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("FromByteLevel(ToByteLevel(% x)) = % x, %v", b, back, err)
		}
	}
	if got := ToByteLevel([]byte(" hello\n")); got != "Ġhello\u010a" {
		t.Errorf("ToByteLevel(\" hello\\n\") = %q, want %q", got, "Ġhello\u010a")
	}
	if _, err := FromByteLevel("ok\u2581"); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("FromByteLevel of a character outside the map: error %v, want unit00.ErrInvalid", err)
	}
}

// TestC4_1_ByteLevelEdges checks FromByteLevel at the edges of the map: the
// first and last of its characters, the ones just outside (U+0144, a
// space, a control), invalid UTF-8, and empty text.
func TestC4_1_ByteLevelEdges(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []byte
	}{
		{"", []byte{}}, {"\u0100", []byte{0}}, {"\u0143", []byte{0xAD}}, {"\u0142", []byte{0xA0}},
		{"!~\u00a1\u00ac\u00ae\u00ff", []byte{'!', '~', 0xA1, 0xAC, 0xAE, 0xFF}},
	} {
		got, err := FromByteLevel(c.in)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("FromByteLevel(%q) = % x, %v; want % x", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"\u0144", "a\u0144", " ", "\x00", "\u007f", "\u00ad", "\xff", "a\xc3", "\U0010FFFF"} {
		if got, err := FromByteLevel(in); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("FromByteLevel(%q) = % x, %v; want an error wrapping unit00.ErrInvalid: that text holds a character outside the map", in, got, err)
		}
	}
}
