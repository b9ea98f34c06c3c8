// Command tokcorpus writes unit04's tokenizer test corpus: a JSON array of
// strings covering what breaks tokenizers. `go generate ./unit04` runs it;
// ci/tokref then records llama.cpp's token ids for the same strings.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
)

func main() {
	out := flag.String("o", "corpus.json", "file to write")
	flag.Parse()
	c := corpus()
	data, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %d strings to %s\n", len(c), *out)
}

// corpus returns the test strings, deduplicated, in a fixed order.
func corpus() []string {
	var c []string
	add := func(s ...string) { c = append(c, s...) }

	// Edge cases of length: nothing, one byte, one character.
	add("", " ", "  ", "\n", "\t", "a", "Z", "0", "'", "\"", "\\", "\u00e9", "\u00bd", "\u2581", "\u0120")
	for b := 0x20; b < 0x7f; b++ {
		add(string(rune(b)))
	}

	// Sentences in many scripts (written for this corpus).
	add(
		"The quick brown fox jumps over the lazy dog.",
		"Forge builds an inference engine one test at a time.",
		"It was 4½ months before the second model loaded.",
		"L'élève a déjà mangé la crème brûlée à côté du café.",
		"Größere Straßen führen über die Brücke nach Köln.",
		"Ο γρήγορος καφέ σκύλος πηδά πάνω από τον φράχτη.",
		"Съешь же ещё этих мягких французских булок, да выпей чаю.",
		"مرحبا بالعالم، هذه جملة عربية للاختبار.",
		"שלום עולם, זה משפט בעברית.",
		"नमस्ते दुनिया, यह हिंदी का एक वाक्य है।",
		"สวัสดีชาวโลกนี่คือประโยคภาษาไทย",
		"你好，世界。这是一个中文句子。",
		"こんにちは世界。これは日本語の文です。カタカナもあります。",
		"안녕하세요 세계, 이것은 한국어 문장입니다.",
		"Բարև աշխարհ, սա հայերեն նախադասություն է։",
		"გამარჯობა სამყაროვ, ეს ქართული წინადადებაა.",
		"வணக்கம் உலகம், இது தமிழ் வாக்கியம்.",
		"ሰላም ለዓለም፣ ይህ የአማርኛ ዓረፍተ ነገር ነው።",
		"Xin chào thế giới, đây là một câu tiếng Việt.",
		"Witaj świecie, zażółć gęślą jaźń.",
		"Merhaba dünya, İstanbul'da ılık bir gün.",
		"Ṫḧïṡ ḧäṡ ċöṁḃïṅïṅġ ṁäṙḳṡ",
		"e\u0301 vs \u00e9: the same letter, two ways",
		"𝔽𝕠𝕣𝕘𝕖 in mathematical double-struck letters",
		"Zero\u200bwidth space and\u00a0no-break space",
		"right-to-left \u202emark\u202c and back",
	)
	scripts := []string{"abc", "αβγ", "абв", "אבג", "ابت", "अआइ", "กขค", "漢字語", "かなカナ", "한글", "ꯀꯁꯂ"}
	for _, s := range scripts {
		add(s, " "+s, s+" "+s, strings.ToUpper(s), s+"123", "123"+s, s+"!"+s)
	}

	// Emoji: single, skin tones, ZWJ sequences, flags, keycaps.
	add("😀", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇫🇷🇯🇵", "1️⃣", "🧑🏿‍🚀", "I ❤️ Go 🐹",
		"😀😀😀", "emoji👍in👍words", " 🙂 ", "👩‍💻👨‍💻 pair programming", "🫠🫡🫥", "⌚⌛⏰")

	// Numbers of every length, with signs, separators, decimals, exponents.
	digits := "31415926535897932384626433832795"
	for n := 1; n <= len(digits); n++ {
		add(digits[:n], " "+digits[:n], "x"+digits[:n]+"y")
	}
	add("-1", "+42", "3.14", "0.000001", "1e-9", "6.022e23", "1,000,000", "1 000 000", "1_000_000",
		"0x1F", "0b1010", "007", "½ ¾ ⅓", "١٢٣٤٥", "१२३४५", "①②③", "Ⅻ", "3rd", "2024-11-21", "12:34:56",
		"v1.2.3", "$9.99", "€1.234,56", "100%", "#1", "a1b2c3", "99 bottles", "1st 2nd 3rd 4th")

	// Contractions in every case.
	for _, w := range []string{"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"} {
		up := strings.ToUpper(w)
		mixed := w[:1] + strings.ToUpper(w[1:2]) + w[2:]
		add("it"+w, "IT"+up, "It"+mixed, w, " "+w, w+"x", "''"+w[1:])
	}
	add("don't", "DON'T", "I'm", "you're", "they've", "we'll", "she'd", "y'all", "rock'n'roll", "'quoted'",
		"it’s (curly)", "l'homme", "O'Brien's")

	// Whitespace: runs, tabs, newlines, mixtures, at both ends.
	for n := 1; n <= 12; n++ {
		sp := strings.Repeat(" ", n)
		add("a"+sp+"b", sp+"a", "a"+sp, strings.Repeat("\t", n)+"x", "x"+strings.Repeat("\n", n)+"y")
	}
	add("a \t b", "a\t \tb", " \n ", "line1\nline2\r\nline3\rline4", "\n\n\nx", "x\n\n\n",
		"  \n  indented\n\ttabbed", "trailing   \n", "\r\n\r\n", " \u3000 ideographic space", "a\u2028b\u2029c",
		"\v\f", "mixed \t\n\r whitespace \t\n")

	// Code.
	add(
		"func main() {\n\tfmt.Println(\"hello\")\n}\n",
		"for i := 0; i < n; i++ {\n\t\tsum += x[i] * y[i]\n\t}",
		"def f(x):\n    return x ** 2  # square\n",
		"if (a && b) || !c { return }",
		"{\"key\": [1, 2.5, true, null], \"s\": \"a\\\"b\"}",
		"<div class=\"x\">Hi &amp; bye</div>",
		"SELECT * FROM t WHERE id = 42;",
		"#include <stdio.h>\nint main(void) { return 0; }",
		"$ go test -run 'C3_4' ./unit03 && echo ok",
		"^[a-z0-9_-]{3,16}$",
		"x += 1; y -= 2; z *= 3; w /= 4",
		"a->b; c::d; e => f; g <- h",
		"// comment\n/* block */\n# hash",
		"https://example.com/path?q=1&r=two#frag",
		"user.name+tag@example.org",
		"C:\\Users\\forge\\file.txt",
		"```go\nx := 1\n```",
		"| a | b |\n|---|---|\n| 1 | 2 |",
		"**bold** _italic_ `code` ~~strike~~",
		"    four spaces of indentation",
		"\t\tfunc x() {}",
		"snake_case camelCase PascalCase kebab-case SCREAMING_CASE",
	)

	// Punctuation runs and symbols.
	add("!!!", "...", "?!?!", "--", "—", "–", "«»", "„“", "()", "[]{}", "@#$%^&*", "~`|", "…", "•", "©®™", "°C",
		"≤≥≠", "→←↑↓", "∑∫√∞", "😀!", "!😀", " !", "! ", "a!b", "a, b; c: d.", "(x)", "[[x]]", "\"quoted\"", "'single'")

	// Special-looking text (ordinary text unless special tokens are parsed).
	add("<|endoftext|>", "a<|endoftext|>b", "<s>", "</s>", "<unk>", "<s> hello </s>", "<|user|>hi<|end|>", "<0x41>", "<|im_start|>")

	// Mixtures and repetitions.
	add(strings.Repeat("a", 100), strings.Repeat("ab", 50), strings.Repeat("hello ", 20), strings.Repeat("😀", 10),
		strings.Repeat("é", 30), strings.Repeat("1", 64), strings.Repeat("Ġ", 5), strings.Repeat("▁", 5),
		"Mixed: English, 中文, العربية, emoji 🎉, numbers 12345, code x := y.")

	// Words of the vocabularies' tricky kinds.
	add("ied 4 ½ months", "Äpfel", "supercalifragilisticexpialidocious", "antidisestablishmentarianism",
		"HTTPServer", "iPhone", "McDonald's", "naïve café", "résumé", "jalapeño", "Zoë", "façade", "TensorFlow",
		" the", "the ", " The", "THE", "tHe", "ing", " ing", "tion", " ization")

	seen := map[string]bool{}
	var out []string
	for _, s := range c {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
