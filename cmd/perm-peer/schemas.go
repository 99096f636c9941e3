package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/perm-peer/perm-peer/schemas"
)

// runSchemas writes the JSON Schemas embedded in the binary (generated from
// package protocol and checked in; schemas' TestSchemasUpToDate keeps them
// equal) into --out and lists the files it wrote.
func runSchemas(args []string) int {
	fs := flag.NewFlagSet("schemas", flag.ContinueOnError)
	out := fs.String("out", "schemas", "directory to write the *.schema.json files into")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: perm-peer schemas [--out DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "perm-peer schemas: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if err := writeSchemas(*out); err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer schemas: %v\n", err)
		return exitFailed
	}
	return exitOK
}

func writeSchemas(dir string) error {
	files := schemas.Files()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return fmt.Errorf("write schema %s: %w", path, err)
		}
		fmt.Println(path)
	}
	return nil
}
