package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemasCommandWritesCheckedIn: `perm-peer schemas --out DIR` writes
// exactly the checked-in schema files, byte for byte, and lists each path.
func TestSchemasCommandWritesCheckedIn(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(binPath, "schemas", "--out", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perm-peer schemas: %v: %s", err, stderr.String())
	}
	want, err := filepath.Glob("../../schemas/*.schema.json")
	if err != nil || len(want) == 0 {
		t.Fatalf("no checked-in schemas: %v", err)
	}
	listed := strings.Fields(stdout.String())
	if len(listed) != len(want) {
		t.Fatalf("listed %d files, %d are checked in:\n%s", len(listed), len(want), stdout.String())
	}
	for _, w := range want {
		name := filepath.Base(w)
		exp, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Errorf("%s not written: %v", name, err)
			continue
		}
		if !bytes.Equal(got, exp) {
			t.Errorf("%s differs from the checked-in file", name)
		}
	}
	written, _ := os.ReadDir(out)
	if len(written) != len(want) {
		t.Errorf("wrote %d files, want %d", len(written), len(want))
	}
}
