// hooks_readers.go decides the readers by their table entry alone
// (cmds.Reader): operands read or listed, flag values by their Role.

package gate

import (
	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
	"slices"
)

// readsInProject reports that every read fact of command idx is a known
// path inside the project.
func (fl *factLog) readsInProject(idx int) bool {
	for _, g := range fl.facts[idx+1:] {
		if g.kind == protocol.FactRead && g.parent == idx && !fl.inProject(g.path) {
			return false
		}
	}
	return true
}

// readsOutsideProject reports a call that reads a known place outside the
// project: names it lists may be there.
func (fl *factLog) readsOutsideProject(idx int) bool {
	return slices.ContainsFunc(fl.facts[idx+1:], func(g *rfact) bool {
		return g.kind == protocol.FactRead && g.parent == idx && g.path.known && !fl.inProject(g.path)
	})
}

// reader handles the read-only programs whose operands are files they read
// (readers): their flags are declared in gate/internal/cmds, and one the
// table lacks makes the call ask; the flags that write or run something
// (sort -o, tree -o, file -C, bat --pager, xxd -r) and uniq IN OUT ask
// too. Flag values are no operands (sort -k 2 x reads x, not 2); a value
// that is a file is read or written by the flag's role.
// It returns what the command prints when that is its stdin (a bare cat).
func (a *analyzer) reader(f *rfact, idx int, lb string, args []word, sc *scope) *stdinSrc {
	var out *stdinSrc
	c := cmds.Reader(lb)
	inv := parseArgs(c, args)
	ok := true
	// what the declared flags do with their values: a file read, a file
	// naming files read, a file written; a flag that writes, runs a
	// program or is declared not safe makes the call not known-safe
	for _, u := range inv.Uses {
		w, has := valueWord(args, u)
		switch u.Flag.Role {
		case argv.Read:
			if has {
				a.readWord(w, sc, idx, false)
			}
		case argv.ReadNames:
			if has {
				a.filesNamedIn(w, sc, idx)
			}
		case argv.Write:
			ok = false
			if has && w.val != "" {
				a.writeFact(a.resolveMaybe(w, w.val, sc, true), -1)
			}
		case argv.Run:
			ok = false
		}
		ok = ok && u.Flag.Effect != argv.NotSafe
	}
	ops := inv.Operands
	// uniq IN OUT and xxd [-r] IN OUT write OUT; xxd -r alone (or with
	// only IN) writes stdout, but is no longer a plain dump
	if c.OutOperand && len(ops) > 1 {
		ok = false
		a.writeFact(a.pathWord(args[ops[len(ops)-1]], sc, true), -1)
		ops = ops[:len(ops)-1]
	}
	if c.Filter == argv.Copies && len(args) == 0 {
		out = a.stdin
	}
	if c.Output == argv.Names && len(ops) == 0 {
		// ls, tree, du with no operand list the working directory
		if sc.cwd == "" {
			a.readFact(pathRef{raw: "."}, idx, true)
		} else if sc.cwd != a.env.Project {
			a.readFact(a.resolvePath(sc.cwd, "", false), idx, true)
		}
	}
	// counters show a count or a type and listers names, never contents
	// (wc -l *.json, file .env), and a dynamic path a project listing gave
	// them is harmless; tree --fromfile prints the lines of its operands,
	// and a flag the table lacks may make any of them print them
	listOnly := c.Output != argv.Contents && !inv.Has("--fromfile") && len(inv.Unknown) == 0
	for _, i := range ops {
		if !c.DataOperands && args[i].val != "-" {
			a.readWord(args[i], sc, idx, listOnly)
		}
	}
	why := lb + " with a flag that writes or runs something"
	if ok && len(inv.Unknown) > 0 {
		// an allowlist (SPEC §5.1): a flag the table lacks may write or run something
		ok, why = false, lb+" "+inv.Unknown[0]+" is a flag the gate does not know"
	}
	if ok {
		f.safe = reason("gate.safe", lb+" only reads")
	} else {
		f.ask = reason("ask.flag", why)
	}
	return out
}
