package unit05

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

func TestC5_2_Embed(t *testing.T) {
	g := oracle.NewRand(52)
	table := &Dense{W: randMat(g, 50, 12)}
	tokens := []int{3, 0, 49, 3, 17}
	x := randMat(g, len(tokens), 12)
	if err := Embed(x, table, tokens); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	for i, tok := range tokens {
		for j := range 12 {
			if x.At(i, j) != table.W.At(tok, j) {
				t.Fatalf("Embed: x[%d][%d] = %v, want row %d of the table, %v", i, j, x.At(i, j), tok, table.W.At(tok, j))
			}
		}
	}
	checkPadding(t, "Embed", x)

	for _, bad := range [][]int{{1, 50, 2}, {-1}, {0, 1, 2, 1 << 40}} {
		x := unit03.NewMat(len(bad), 12)
		err := Embed(x, table, bad)
		if !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("Embed(%v) with a vocabulary of 50: error %v, want one wrapping unit00.ErrInvalid", bad, err)
			continue
		}
		if at := fmt.Sprintf("position %d", badAt(bad, 50)); !strings.Contains(err.Error(), at) {
			t.Errorf("Embed(%v): %q should say at which position the bad token is (%s)", bad, err, at)
		}
		for _, v := range x.Data {
			if v != 0 {
				t.Errorf("Embed(%v) failed but wrote into x: check every token before copying any row", bad)
				break
			}
		}
	}
	mustPanic(t, "Embed of 2 tokens into an x 11 wide (Dim 12)", func() { _ = Embed(unit03.NewMat(2, 11), table, []int{1, 2}) })
	mustPanic(t, "Embed of 2 tokens into an x 13 wide (Dim 12)", func() { _ = Embed(unit03.NewMat(2, 13), table, []int{1, 2}) })
	mustPanic(t, "Embed of 2 tokens into an x of 3 rows", func() { _ = Embed(unit03.NewMat(3, 12), table, []int{1, 2}) })
	mustPanic(t, "Embed of 2 tokens into an x of 1 row", func() { _ = Embed(unit03.NewMat(1, 12), table, []int{1, 2}) })
	// No tokens into no rows: nothing to do, no error.
	if err := Embed(unit03.NewMat(0, 12), table, nil); err != nil {
		t.Errorf("Embed of no tokens: %v, want nil (nothing to do)", err)
	}
}

// badAt returns the position of the first token outside [0, vocab).
func badAt(tokens []int, vocab int) int {
	for i, tok := range tokens {
		if tok < 0 || tok >= vocab {
			return i
		}
	}
	return -1
}
