package gate

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/scripts"
)

// scriptSteps turns what a script does (package scripts' Sqlite, DB) into
// facts, in its order: a command it runs is analysed, a file it writes or
// reads is a write or read of it.
func (a *analyzer) scriptSteps(steps []scripts.Step, sc *scope, idx int) {
	for _, s := range steps {
		switch s.Kind {
		case scripts.Run:
			a.reparse(s.Arg, sc, idx)
		case scripts.Write:
			a.writeWord(word{val: s.Arg}, sc, idx)
		case scripts.Read:
			a.readWord(word{val: s.Arg}, sc, idx, false)
		}
	}
}

// sqlite3 reads the database's SQL and dot-commands.
func (c *plainCall) sqlite3() {
	a, idx, args, sc := c.a, c.idx, c.args, c.sc
	// sqlite3 DB SQL…: dot-commands run programs and open files;
	// -cmd COMMAND runs one before the SQL, -init FILE reads more
	vals := map[string]bool{}
	for _, o := range []string{"cmd", "init", "lookaside", "maxsize", "mmap", "newline", "nonce", "nullvalue",
		"pagecache", "separator", "vfs"} {
		vals["-"+o], vals["--"+o] = true, true
	}
	ops := operands(args, vals)
	for i, w := range args[:max(len(args)-1, 0)] {
		switch strings.TrimLeft(w.val, "-") {
		case "cmd":
			a.scriptSteps(scripts.Sqlite(args[i+1].val), sc, idx)
		case "init":
			if in := a.scriptFrom(args[i+1]); in != nil {
				a.scriptSteps(scripts.Sqlite(in.text), sc, idx)
			} else {
				a.readWord(args[i+1], sc, idx, false)
			}
		}
	}
	for n, i := range ops {
		if n == 0 {
			a.readWord(args[i], sc, idx, false)
			continue
		}
		a.scriptSteps(scripts.Sqlite(args[i].val), sc, idx)
	}
	if in := a.stdinCode(); in != nil {
		a.scriptSteps(scripts.Sqlite(in.text), sc, idx)
	}
}

// dbClient analyses the client commands psql (hook "psql") and mysql
// (hook "db-client") are given (-c, -e, -f, stdin) and the options that
// run or write: psql -o |CMD, mysql --pager=CMD, --tee=FILE, -L FILE.
func (a *analyzer) dbClient(hook string, args []word, sc *scope, idx int) {
	cmds := optionValues(args, 'e', "--execute")
	if hook == "psql" {
		cmds = optionValues(args, 'c', "--command")
		for _, w := range optionValues(args, 'f', "--file") {
			if in := a.scriptFrom(w); in != nil {
				a.scriptSteps(scripts.DB(in.text), sc, idx)
			} else if w.val == "-" {
				if in := a.stdinCode(); in != nil {
					a.scriptSteps(scripts.DB(in.text), sc, idx)
				}
			} else {
				a.readWord(w, sc, idx, false)
			}
			cmds = append(cmds, word{})
		}
		for _, w := range optionValues(args, 'o', "--output") {
			a.scriptSteps(scripts.DB(`\o `+w.val), sc, idx)
		}
		for _, w := range optionValues(args, 'L', "--log-file") {
			a.writeWord(w, sc, idx)
		}
	} else {
		for _, w := range optionValues(args, 0, "--pager") {
			a.reparse(w.val, sc, idx)
		}
		for _, w := range optionValues(args, 0, "--tee") {
			a.writeWord(w, sc, idx)
		}
	}
	for _, w := range cmds {
		a.scriptSteps(scripts.DB(w.val), sc, idx)
	}
	if len(cmds) == 0 {
		if in := a.stdinCode(); in != nil {
			a.scriptSteps(scripts.DB(in.text), sc, idx)
		}
	}
}
