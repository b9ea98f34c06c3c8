package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/llmforge/forge/internal/overlay"
)

func cmdOverlay(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("overlay", flag.ContinueOnError)
	var sel selectionFlags
	sel.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	r, err := repo()
	if err != nil {
		return err
	}
	var units = pos
	us, err := parseUnits(r, units)
	if err != nil {
		return err
	}
	if len(units) == 0 {
		us = nil // every unit takes --impl
	}
	s, err := sel.selection(ctx, us)
	if err != nil {
		return err
	}
	ov, err := overlay.Build(r, s)
	if err != nil {
		return err
	}
	// A stable name per checkout and selection, so the path can be reused in
	// a shell: go test -overlay "$(forge overlay --impl ref)" ./unit01
	key := r.Root + "|" + s.Key()
	name := fmt.Sprintf("forge-overlay-%x.json", sha256.Sum256([]byte(key)))[:30] + ".json"
	path, err := ov.Write(os.TempDir(), filepath.Base(name))
	if err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}

func cmdMaterialize(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("materialize", flag.ContinueOnError)
	var sel selectionFlags
	sel.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("materialize takes one folder to create: forge materialize --impl ref DIR")
	}
	r, err := repo()
	if err != nil {
		return err
	}
	s, err := sel.selection(ctx, nil)
	if err != nil {
		return err
	}
	ov, err := overlay.Build(r, s)
	if err != nil {
		return err
	}
	if err := overlay.Materialize(r, ov, pos[0]); err != nil {
		return err
	}
	fmt.Printf("wrote the repository with impl %s to %s\n", s.Impl, pos[0])
	return nil
}
