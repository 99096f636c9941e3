package gate

import (
	"path"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/scripts"
)

// awkCall is a call of awk (gawk, mawk, nawk) as awk reads its words: the
// programs it runs and its file operands. What a program does is package
// scripts' Awk; this reads the options and turns the effects into facts.
type awkCall struct {
	a        *analyzer
	f        *rfact
	idx      int
	spec     *argv.Command // awk's table entry: its options
	args     []word
	sc       *scope
	ok       bool   // known-safe so far: only harmless options
	inplace  bool   // gawk -i inplace: every file operand is rewritten
	progs    []word // the program texts, in order
	ops      []word // the operands
	readsEnv bool   // a program reads the environment
}

func (a *analyzer) awk(f *rfact, idx int, spec *argv.Command, args []word, sc *scope) (readsEnv bool) {
	c := &awkCall{a: a, f: f, idx: idx, spec: spec, args: args, sc: sc, ok: true}
	c.options()
	c.operands()
	for _, p := range c.progs {
		c.program(p)
	}
	if c.ok {
		f.safe = reason("gate.safe", "awk without system, pipes or redirections only reads")
	} else {
		f.ask = reason("ask.flag", "awk that may run commands or write files")
	}
	return c.readsEnv
}

// options reads awk's options by its entry (awkFlags): only the switches,
// -F, -v and mawk's -W version, spelled in full, and -e's programs keep it
// known-safe; any other (-f FILE, -l EXT, -i FILE, --exec, an
// abbreviation gawk accepts) may load code from elsewhere, and asks. The
// options end at the first operand, the program text (or the first file
// after -f): awk '{print}' -F ~/.aws/credentials reads a file named -F.
func (c *awkCall) options() {
	inv := parseArgs(c.spec, c.args)
	for _, i := range inv.Operands {
		c.ops = append(c.ops, c.args[i])
	}
	c.ok = c.ok && len(inv.Unknown) == 0
	for _, u := range inv.Uses {
		c.option(u)
	}
}

// option reads the option u.
func (c *awkCall) option(u argv.Use) {
	v, has := valueWord(c.args, u)
	if u.Flag.Arity != argv.None && !strings.HasPrefix(c.args[u.At].val, u.Name) {
		c.ok = false // a long option abbreviated (--sou=PROG), or one with a value in a cluster (-Se PROG)
	}
	switch {
	case u.Flag.Role == argv.Code: // -e PROG, --source=PROG
		if has {
			c.progs = append(c.progs, v)
		}
	case u.Name == "-f" || u.Name == "--file":
		if has {
			c.programFile(v, u.ValAt)
		}
		c.ok = false
	case u.Flag.Role == argv.Source: // -i FILE, -l EXT load code; gawk -i inplace rewrites every file operand
		c.ok = false
		switch {
		case !has:
		case strings.TrimSuffix(path.Base(v.val), ".awk") == "inplace":
			c.inplace = true
		default:
			c.a.readWord(v, c.sc, c.idx, false)
		}
	case u.Name == "-W": // mawk -W version
		c.ok = c.ok && has && u.ValAt != u.At && (v.val == "version" || v.val == "v")
	case u.Flag.Arity == argv.Optional && awkReportFile(u.Name) != "": // gawk -d[FILE], -p[FILE], -o[FILE]
		file := awkReportFile(u.Name)
		if u.ValAt >= 0 {
			file = u.Value
		}
		c.ok = false
		c.a.writeWord(word{val: file}, c.sc, c.idx)
	}
}

// awkReportFile is the file gawk's -d, -p and -o (--dump-variables,
// --profile, --pretty-print) write their report to without a value:
// awkvars.out and awkprof.out; "" for another option.
func awkReportFile(name string) string {
	switch name {
	case "-d", "--dump-variables":
		return "awkvars.out"
	case "-p", "--profile", "-o", "--pretty-print":
		return "awkprof.out"
	}
	return ""
}

// programFile: -f FILE (w, word i of the call; -1 when attached) is read,
// or is the program when it is a text the call spells on stdin (awk -f
// /dev/stdin <<< PROG).
func (c *awkCall) programFile(w word, i int) {
	if w.val == "-" && !w.dyn {
		// gawk -f - reads stdin; the caller's word is changed too, as
		// before this moved here, so its later readers see the same
		w.val = "/dev/stdin"
		if i >= 0 {
			c.args[i].val = w.val
		}
	}
	if in := c.a.scriptFrom(w); in != nil {
		c.progs = append(c.progs, word{val: in.text, dyn: !in.known})
	} else {
		c.a.readWord(w, c.sc, c.idx, false)
	}
}

// operands reads the operands: the first is the program when no option
// gave one, var=value sets a variable, the others are files read (and
// rewritten by the in-place extension).
func (c *awkCall) operands() {
	fromFile := !c.ok
	for n, w := range c.ops {
		if n == 0 && !fromFile && len(c.progs) == 0 {
			c.progs = append(c.progs, w)
			continue
		}
		if strings.Contains(w.val, "=") && !strings.Contains(w.val, "/") {
			continue // var=value operand
		}
		c.a.readWord(w, c.sc, c.idx, false)
		if c.inplace || slices.ContainsFunc(c.progs, func(p word) bool { return scripts.AwkInplace(p.val) }) {
			c.a.writeWord(w, c.sc, c.idx)
		}
	}
}

// program turns what program p does into facts.
func (c *awkCall) program(p word) {
	a, v := c.a, p.val
	progSafe := !p.dyn && scripts.AwkSafe(v)
	if !progSafe {
		c.ok = false
	}
	if scripts.AwkSocket(v) {
		c.f.floor = reason("floor.reverse-shell", "awk opens a network socket")
	}
	if scripts.AwkEnviron(v) {
		c.f.human = reason("human.env-dump", "awk reads the environment")
		c.readsEnv = true
	}
	if progSafe || p.dyn {
		return
	}
	prog := scripts.Awk(v, isShell)
	runs := prog.Runs
	if prog.Computed {
		// the command is built at run time from the literals the program
		// holds, alone or joined ("r" "m -rf ~")
		runs = append(runs, prog.Literals...)
		runs = append(runs, joinedLiterals(prog.Joined, false)...)
	}
	for _, cmd := range runs {
		if strings.TrimSpace(cmd) != "" {
			a.reparse(cmd, c.sc, c.idx)
		}
	}
	for _, w := range prog.Writes {
		a.writeWord(word{val: w}, c.sc, c.idx)
	}
	for _, r := range prog.Reads {
		a.readWord(word{val: r}, c.sc, c.idx, false)
	}
	// A path in a string of a program that can open files
	// (ARGV[1]="~/.ssh/id_rsa", getline < ".env") is a file it may
	// read; in any other program a string is only text ($0 == ".env").
	for _, lit := range prog.Literals {
		if strings.ContainsAny(lit, "/.~") && !strings.ContainsAny(lit, " \t\n%") {
			if r := a.resolvePath(lit, c.sc.cwd, false); a.sensitive(r) {
				a.readFact(r, c.idx, false)
			}
		}
	}
}
