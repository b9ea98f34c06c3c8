package unit04

// GPT-2's byte-level BPE works on text where every byte is a printable
// character: bytes that already print as themselves (0x21–0x7E, 0xA1–0xAC,
// 0xAE–0xFF) stand for themselves, and the 68 others (controls, the space,
// 0x7F–0xA0, 0xAD) take the code points from U+0100 on, in byte order. A
// space becomes "Ġ" (U+0120), a newline "Ċ" (U+010A).

// ByteRune returns the character that stands for byte b.
func ByteRune(b byte) rune {
	panic("TODO(4.1): write ByteRune, see docs/unit04.md")
}

// RuneByte returns the byte that character r stands for, and false if r is
// not one of the 256 characters of the map.
func RuneByte(r rune) (byte, bool) {
	panic("TODO(4.1): write RuneByte, see docs/unit04.md")
}

// ToByteLevel writes the bytes of b as their characters.
func ToByteLevel(b []byte) string {
	panic("TODO(4.1): write ToByteLevel, see docs/unit04.md")
}

// FromByteLevel turns characters back into the bytes they stand for. A
// character outside the map is an error wrapping unit00.ErrInvalid.
func FromByteLevel(s string) ([]byte, error) {
	panic("TODO(4.1): write FromByteLevel, see docs/unit04.md")
}
