package gate

import (
	"path"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/scripts"
)

// awkCall is a call of awk (gawk, mawk, nawk) as awk reads its words: the
// programs it runs and its file operands. What a program does is package
// scripts' Awk; this reads the options and turns the effects into facts.
type awkCall struct {
	a        *analyzer
	f        *rfact
	idx      int
	args     []word
	sc       *scope
	ok       bool   // known-safe so far: only harmless options
	inplace  bool   // gawk -i inplace: every file operand is rewritten
	progs    []word // the program texts, in order
	ops      []word // the operands
	readsEnv bool   // a program reads the environment
}

func (a *analyzer) awk(f *rfact, idx int, args []word, sc *scope) (readsEnv bool) {
	c := &awkCall{a: a, f: f, idx: idx, args: args, sc: sc, ok: true}
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

// options reads awk's options against a list of the harmless ones: any
// other (-f FILE, -fFILE, --sou=PROG, -l EXT, -i FILE, --exec,
// abbreviations gawk accepts) may load code from elsewhere, and asks.
func (c *awkCall) options() {
	dd := false
	for i := 0; i < len(c.args); i++ {
		w := c.args[i]
		switch {
		case dd || w.dyn || w.val == "-" || !strings.HasPrefix(w.val, "-"):
			// options end at the first operand, the program text (or the
			// first file after -f): awk '{print}' -F ~/.aws/credentials
			// reads a file named -F and the credentials
			c.ops = append(c.ops, w)
			dd = true
		case w.val == "--":
			dd = true
		default:
			i = c.option(i)
		}
	}
}

// option reads the option at word i and returns the last word it used.
func (c *awkCall) option(i int) int {
	args := c.args
	v := args[i].val
	last := i // the option's value, when it is the next word
	if i+1 < len(args) {
		last = i + 1
	}
	switch {
	case v == "-F" || v == "-v" || v == "--field-separator" || v == "--assign":
		return last
	case strings.HasPrefix(v, "-F") || strings.HasPrefix(v, "-v") && !strings.HasPrefix(v, "--") ||
		strings.HasPrefix(v, "--field-separator=") || strings.HasPrefix(v, "--assign="):
	case v == "-e" || v == "--source":
		if last > i {
			c.progs = append(c.progs, args[last])
		}
		return last
	case strings.HasPrefix(v, "--source="):
		c.progs = append(c.progs, word{val: strings.TrimPrefix(v, "--source="), dyn: args[i].dyn})
	case awkHarmless[strings.SplitN(v, "=", 2)[0]] ||
		len(v) > 1 && v[1] != '-' && strings.Trim(v[1:], "PcSLMbNrOstV") == "":
		// --version, --posix, --sandbox, --lint, -M, ...: no code, no files
	case v == "-W" && last > i && (args[last].val == "version" || args[last].val == "v"):
		return last // mawk -W version
	case awkInplace(args[i:]):
		// gawk -i inplace rewrites every file operand
		c.inplace, c.ok = true, false
		if v == "-i" || !strings.Contains(v, "=") && strings.HasPrefix(v, "--") {
			return last
		}
	case v == "-f" || v == "--file":
		if last > i {
			c.programFile(last)
		}
		c.ok = false
		return last
	case awkReportFile(v) != "":
		c.ok = false
		c.a.writeWord(word{val: awkReportFile(v)}, c.sc, c.idx)
	default:
		c.ok = false
	}
	return i
}

// awkReportFile is the file gawk's -d, -p and -o (--dump-variables,
// --profile, --pretty-print) write their report to: the option's
// attached value, or awkvars.out and awkprof.out; "" for another option.
func awkReportFile(v string) string {
	for _, o := range []struct{ short, long, file string }{
		{"-d", "--dump-variables", "awkvars.out"}, {"-p", "--profile", "awkprof.out"}, {"-o", "--pretty-print", "awkprof.out"}} {
		switch {
		case v == o.short || v == o.long:
			return o.file
		case strings.HasPrefix(v, o.long+"="):
			return v[len(o.long)+1:]
		case strings.HasPrefix(v, o.short) && !strings.HasPrefix(v, "--"):
			return v[len(o.short):]
		}
	}
	return ""
}

// programFile: -f FILE, word i, is read, or is the program when it is a
// text the call spells on stdin (awk -f /dev/stdin <<< PROG).
func (c *awkCall) programFile(i int) {
	if c.args[i].val == "-" && !c.args[i].dyn {
		// gawk -f - reads stdin; the caller's word is changed too, as
		// before this moved here, so its later readers see the same
		c.args[i].val = "/dev/stdin"
	}
	if in := c.a.scriptFrom(c.args[i]); in != nil {
		c.progs = append(c.progs, word{val: in.text, dyn: !in.known})
	} else {
		c.a.readWord(c.args[i], c.sc, c.idx, false)
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

// awkInplace reports gawk's in-place extension loaded by the option at the
// head of args: -i inplace, -iinplace.awk, --include=inplace, --incl inplace.
func awkInplace(args []word) bool {
	v, val := args[0].val, ""
	switch {
	case v == "-i" || strings.HasPrefix(v, "--") && !strings.Contains(v, "=") && len(v) > 4 && strings.HasPrefix("--include", v):
		if len(args) > 1 {
			val = args[1].val
		}
	case strings.HasPrefix(v, "-i"):
		val = v[2:]
	case strings.HasPrefix(v, "--") && len(v) > 4 && strings.HasPrefix("--include", v[:strings.IndexByte(v+"=", '=')]):
		_, val, _ = strings.Cut(v, "=")
	default:
		return false
	}
	return strings.TrimSuffix(path.Base(val), ".awk") == "inplace"
}

// awkHarmless are awk options that load no code and open no file.
var awkHarmless = map[string]bool{"--version": true, "--posix": true, "--traditional": true, "--compat": true,
	"--sandbox": true, "--lint": true, "--lint-old": true, "--bignum": true, "--characters-as-bytes": true,
	"--use-lc-numeric": true, "--re-interval": true, "--optimize": true, "--no-optimize": true, "--copyright": true, "--help": true}
