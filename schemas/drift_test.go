package schemas

import (
	"bytes"
	"flag"
	"os"
	"sort"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the checked-in schema files from the protocol types")

// TestSchemasUpToDate fails when the checked-in files differ from what the
// generator produces from package protocol today.
func TestSchemasUpToDate(t *testing.T) {
	gen, err := Generate()
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if *update {
		for name, b := range gen {
			if err := os.WriteFile(name, b, 0o644); err != nil {
				t.Fatalf("write %s: %v", name, err)
			}
		}
	}
	onDisk := map[string][]byte{}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatalf("read schemas dir: %v", err)
	}
	for _, e := range entries {
		if !e.IsDir() && len(e.Name()) > 5 && e.Name()[len(e.Name())-5:] == ".json" {
			b, err := os.ReadFile(e.Name())
			if err != nil {
				t.Fatalf("read %s: %v", e.Name(), err)
			}
			onDisk[e.Name()] = b
		}
	}
	var names []string
	for n := range gen {
		names = append(names, n)
	}
	for n := range onDisk {
		if _, ok := gen[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		switch want, got := gen[n], onDisk[n]; {
		case got == nil:
			t.Errorf("%s is generated but not checked in: run make schemas", n)
		case want == nil:
			t.Errorf("%s is checked in but no longer generated: delete it and run make schemas", n)
		case !bytes.Equal(want, got):
			t.Errorf("%s differs from the generator output: run make schemas", n)
		}
	}
}
