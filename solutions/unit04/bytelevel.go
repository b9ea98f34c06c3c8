package unit04

import (
	"fmt"
	"strings"

	"github.com/llmforge/forge/unit00"
)

// GPT-2's byte-level BPE works on text where every byte is a printable
// character: bytes that already print as themselves (0x21–0x7E, 0xA1–0xAC,
// 0xAE–0xFF) stand for themselves, and the 68 others (controls, the space,
// 0x7F–0xA0, 0xAD) take the code points from U+0100 on, in byte order. A
// space becomes "Ġ" (U+0120), a newline "Ċ" (U+010A).

// selfPrinting reports whether byte b stands for itself.
func selfPrinting(b byte) bool {
	return b >= 0x21 && b <= 0x7E || b >= 0xA1 && b <= 0xAC || b >= 0xAE
}

// ByteRune returns the character that stands for byte b.
func ByteRune(b byte) rune {
	if selfPrinting(b) {
		return rune(b)
	}
	// The n-th byte (in order) that does not print as itself maps to 256+n.
	n := 0
	for c := 0; c < int(b); c++ {
		if !selfPrinting(byte(c)) {
			n++
		}
	}
	return rune(256 + n)
}

// RuneByte returns the byte that character r stands for, and false if r is
// not one of the 256 characters of the map.
func RuneByte(r rune) (byte, bool) {
	if r < 256 {
		return byte(r), r >= 0 && selfPrinting(byte(r))
	}
	n := int(r) - 256
	for c := 0; c < 256; c++ {
		if !selfPrinting(byte(c)) {
			if n == 0 {
				return byte(c), true
			}
			n--
		}
	}
	return 0, false
}

// ToByteLevel writes the bytes of b as their characters.
func ToByteLevel(b []byte) string {
	var sb strings.Builder
	sb.Grow(2 * len(b))
	for _, c := range b {
		sb.WriteRune(byteRunes[c])
	}
	return sb.String()
}

// FromByteLevel turns characters back into the bytes they stand for. A
// character outside the map is an error wrapping unit00.ErrInvalid.
func FromByteLevel(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i, r := range s {
		b, ok := runeByte(r)
		if !ok {
			return nil, fmt.Errorf("byte-level text %q: character %q at byte %d stands for no byte: %w", s, r, i, unit00.ErrInvalid)
		}
		out = append(out, b)
	}
	return out, nil
}

// byteRunes is the map as a table; runeByte is its inverse over U+0000–
// U+0143 (the map's range), both built once from the rule above.
var byteRunes = func() (t [256]rune) {
	for b := range t {
		t[b] = ByteRune(byte(b))
	}
	return t
}()

var runeBytes = func() (t [256 + 68]int16) {
	for i := range t {
		t[i] = -1
	}
	for b, r := range byteRunes {
		t[r] = int16(b)
	}
	return t
}()

func runeByte(r rune) (byte, bool) {
	if r < 0 || int(r) >= len(runeBytes) || runeBytes[r] < 0 {
		return 0, false
	}
	return byte(runeBytes[r]), true
}
