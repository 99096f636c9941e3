package gate

import (
	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
)

// queries reads the programs that only print in the forms their entry
// declares (cmds.Query: xcode-select -p, csrutil status, brew info):
// known-safe in one of them, with the files their flags name read; any
// other form (xcrun clang, brew services start) is left unknown. The
// table's flags are read by the allowlist: one it lacks asks.
// It reports whether the program is a query.
func (c *plainCall) queries() bool {
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
