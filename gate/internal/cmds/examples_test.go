package cmds

import (
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// TestExamples checks every example of the table: the parser finds
// exactly the unknown flag it names, or none.
func TestExamples(t *testing.T) {
	n := 0
	var all []*argv.Command
	var walk func(cs []*argv.Command)
	walk = func(cs []*argv.Command) {
		for _, c := range cs {
			all = append(all, c)
			walk(c.Subs)
		}
	}
	walk(append(All(), Netcat))
	for _, c := range all {
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
	if n < 100 {
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

// TestLookup checks that every declaration is found by its name, and a
// program the table lacks is not.
func TestLookup(t *testing.T) {
	for _, c := range All() {
		if Lookup(c.Name) != c {
			t.Errorf("%s: not found", c.Name)
		}
	}
	if Lookup("rm") != nil || Lookup("git").Sub("push") != nil {
		t.Error("rm and git push are not declared")
	}
}
