package gate

import (
	"path"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// SPEC §5.1: an unknown flag of a known-safe program makes the call not
// known-safe. The code finds a command known-safe by what it does; the
// command table (gate/internal/cmds) says which flags the program has.
// So every exec fact the code found known-safe is read by the table, and
// one with a flag the table lacks asks instead: the flag may write or run
// something the code has no arm for (rg --pre, git log --output=FILE).

// allowlist turns the known-safe exec facts with a flag the table lacks
// into asks.
func allowlist(facts []*rfact) {
	for _, f := range facts {
		if f.kind != protocol.FactExec || f.safe == nil || f.safe.Code != "gate.safe" || len(f.argv) == 0 {
			continue
		}
		if u := unknownFlag(f.argv); u != "" {
			f.safe = nil
			f.ask = reason("ask.flag", clip(f.argv[0]+" "+u, 120)+" is a flag the gate does not know")
		}
	}
}

// unknownFlag is the first flag of argv (a program and its arguments) that
// the table does not declare, "" when there is none or the table does not
// have the program or its subcommand.
func unknownFlag(argv []string) string {
	c := cmds.Lookup(strings.ToLower(path.Base(argv[0])))
	args := argv[1:]
	at := func(i int) (string, bool) { return args[i], false }
	for c != nil && len(c.Subs) > 0 {
		// the global flags, up to the subcommand's name
		if u := c.FirstUnknown(len(args), at); u != "" {
			return u
		}
		i := c.FirstOperand(len(args), at)
		if i < 0 {
			return ""
		}
		c, args = c.Sub(args[i]), args[i+1:]
	}
	return c.FirstUnknown(len(args), at)
}
