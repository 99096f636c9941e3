package gate

import (
	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
)

// queries reads the rewriters (plutil, PlistBuddy) and the programs that
// only print in the forms their entry declares (cmds.Query: xcode-select
// -p, csrutil status, brew info):
// known-safe in one of them, with the files their flags name read; any
// other form (xcrun clang, brew services start) is left unknown. The
// table's flags are read by the allowlist: one it lacks asks.
// It reports whether the program is a query.
func (c *plainCall) queries() bool {
	if r := cmds.RewriterOf(c.lb); r != nil {
		c.rewrites(r)
		return true
	}
	q := cmds.QueryOf(c.lb)
	if q == nil {
		return false
	}
	for _, u := range parseArgs(q.Cmd, c.args).Uses {
		if w, has := valueWord(c.args, u); has && u.Flag.Role == argv.Read {
			c.a.readWord(w, c.sc, c.idx, false)
		}
	}
	if q.Prints(len(c.args), wordAt(c.args)) {
		c.safe(c.lb + " only prints")
	}
	return true
}

// rewrites reads a program that rewrites the files it is given in its
// editing modes (cmds.Rewriter): it reads them, and writes them, or the
// file its output flag names; writing nothing, it only prints.
func (c *plainCall) rewrites(r *cmds.Rewriter) {
	inv := parseArgs(r.Cmd, c.args)
	edits, out := r.Writes(inv, len(c.args), wordAt(c.args))
	for _, i := range inv.Operands {
		if c.args[i].val == "-" && !c.args[i].dyn {
			continue // stdin
		}
		c.a.readWord(c.args[i], c.sc, c.idx, false)
		if edits {
			c.a.writeWord(c.args[i], c.sc, c.idx)
		}
	}
	if out >= 0 {
		c.a.writeWord(c.args[out], c.sc, c.idx)
	}
	if !edits && out < 0 {
		c.safe(c.lb + " only prints")
	}
}
