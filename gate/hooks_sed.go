package gate

import (
	"path"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/scripts"
)

// sedCall is a call of sed (or gsed) as sed reads its words: the scripts
// it runs, whether it edits its files in place, and its file operands.
// What the scripts do is package scripts' Sed; this reads the options and
// turns the scripts' effects into facts.
type sedCall struct {
	a       *analyzer
	idx     int
	args    []word
	sc      *scope
	spec    *argv.Command // sed's table entry: its long options
	ok      bool          // known-safe so far: every option known, every script known
	inPlace bool          // -i / --in-place
	suffix  string        // -iSUF / --in-place=SUF: the backup file's suffix
	scripts []string      // the scripts, in order
	// scriptFlag: a script came from -e or -f, so the first operand is a
	// file, not the script
	scriptFlag bool
	ops        []int // the operands' indexes
}

// sed reads a call of sed, whose table entry is spec.
func (a *analyzer) sed(f *rfact, idx int, spec *argv.Command, args []word, sc *scope) {
	c := &sedCall{a: a, idx: idx, spec: spec, args: args, sc: sc, ok: true}
	c.options()
	c.files()
	ok := c.ok && !c.inPlace
	for _, s := range c.scripts {
		safe, eff := scripts.Sed(s)
		ok = ok && safe
		for _, cmd := range eff.Runs {
			a.reparse(cmd, sc, idx)
		}
		for _, w := range eff.Writes {
			a.writeWord(word{val: w}, sc, idx)
		}
		for _, r := range eff.Reads {
			a.readWord(word{val: r}, sc, idx, false)
		}
	}
	if ok {
		f.safe = reason("gate.safe", "sed without -i, w or e only reads")
	} else {
		f.ask = reason("ask.flag", "sed that edits files or runs commands")
	}
}

// options reads sed's options by its entry (GNU's: clusters, abbreviated
// long names, -i's optional suffix) and keeps the operands' indexes. A
// word known only at run time is an operand (RunTimeOperands).
func (c *sedCall) options() {
	inv := parseArgs(c.spec, c.args)
	c.ops = inv.Operands
	c.ok = c.ok && len(inv.Unknown) == 0
	for _, u := range inv.Uses {
		v, has := valueWord(c.args, u)
		switch {
		case u.Flag.Role == argv.Code: // -e SCRIPT
			c.scriptFlag = true
			if has {
				c.script(v)
			}
		case u.Flag.Role == argv.Source: // -f FILE: a script file the gate does not read
			c.scriptFlag, c.ok = true, false
			if has {
				c.scriptFile(v)
			}
		case u.Flag.Effect == argv.NotSafe: // -i[SUFFIX], --in-place[=SUFFIX]
			c.inPlace, c.suffix = true, u.Value
		}
	}
}

// script keeps a script; one known only at run time is not known-safe.
func (c *sedCall) script(w word) {
	c.scripts = append(c.scripts, w.val)
	if w.dyn {
		c.ok = false
	}
}

// scriptFile: -f FILE is read, or is the script when it is a text the
// call spells on stdin.
func (c *sedCall) scriptFile(w word) {
	if w.val == "-" && !w.dyn {
		w.val = "/dev/stdin" // GNU sed -f - reads stdin
	}
	if in := c.a.scriptFrom(w); in != nil {
		c.script(word{val: in.text, dyn: !in.known})
	} else {
		c.a.readWord(w, c.sc, c.idx, false)
	}
}

// files reads the operands: the first is the script when no -e or -f gave
// one; the others are read, or written (with their backups) by -i.
func (c *sedCall) files() {
	for n, i := range c.ops {
		w := c.args[i]
		switch {
		case n == 0 && !c.scriptFlag:
			c.script(w)
		case c.inPlace:
			c.a.writeWord(w, c.sc, -1)
			if c.suffix != "" && !w.dyn {
				c.a.writeWord(word{val: sedBackup(w.val, c.suffix)}, c.sc, -1) // sed -i'rc' x ~/.bash writes ~/.bashrc
			}
		default:
			c.a.readWord(w, c.sc, c.idx, false)
		}
	}
}

// sedBackup is the backup file GNU sed -i SUFFIX writes beside file: the
// suffix appended, or with * standing for the file's name (and a / making
// it a path relative to the file's directory).
func sedBackup(file, suffix string) string {
	if !strings.Contains(suffix, "*") {
		return file + suffix
	}
	dir, base := path.Split(file)
	b := strings.ReplaceAll(suffix, "*", base)
	if strings.HasPrefix(b, "/") {
		return b // an absolute path
	}
	return dir + b
}
