package cmds

import (
	"strings"
	"testing"
)

// TestExamples checks every example of the table: the parser finds
// exactly the unknown flag it names, or none.
func TestExamples(t *testing.T) {
	n := 0
	for _, c := range append(readers, Netcat, Script, Lldb) {
		for _, e := range c.Examples {
			n++
			inv := c.Parse(strings.Fields(e.Args), nil)
			got := ""
			if len(inv.Unknown) > 0 {
				got = inv.Unknown[0]
			}
			if got != e.Unknown {
				t.Errorf("%s %s: unknown flag %q, want %q", c.Name, e.Args, got, e.Unknown)
			}
		}
	}
	if n < 60 {
		t.Errorf("only %d examples", n)
	}
}

// TestReaderIndex checks that each reader is declared once and found by
// its name.
func TestReaderIndex(t *testing.T) {
	for _, c := range readers {
		if Reader(c.Name) != c {
			t.Errorf("%s: not found", c.Name)
		}
	}
	if Reader("rm") != nil {
		t.Error("rm is no reader")
	}
}
