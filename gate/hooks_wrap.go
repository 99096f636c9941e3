package gate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// wrapCall is a call of a wrapper the table declares (cmds/wrappers.go):
// the hooks that find the command it runs are its methods.
type wrapCall struct {
	a    *analyzer
	f    *rfact
	idx  int
	w    *cmds.Wrapper
	args []word
	sc   *scope
}

// transparent wrappers change how a command runs, not what it can do: the
// table says which words are theirs (options, operands of their own), the
// rest is the command, which is analysed.
func (c *wrapCall) transparent() summary {
	if c.w.Hook == "env" {
		// env decides itself what it is: a wrapper, or a printer of the
		// environment (env, env -S with no string)
		return c.env()
	}
	a, f, idx, w, args, sc := c.a, c.f, c.idx, c.w, c.args, c.sc
	lb := w.Name
	f.wrapper = true
	f.safe = reason("gate.wrapper", lb+" runs the inner command, which is analysed")
	i := c.ownOptions()
	switch {
	case w.Runner != nil:
		var done bool
		if i, done = c.runnerProgram(); done {
			return summary{}
		}
	case w.Operands:
		i = 0
	case w.Hook == "emulate":
		for j, v := range args {
			if v.val == "-c" && j+1 < len(args) {
				return a.shellString(f, args[j+1], sc, idx)
			}
		}
		f.wrapper = false
		f.safe = reason("gate.safe", "emulate sets shell options")
		return summary{}
	case w.Hook == "flock":
		if s, done := c.flock(i); done {
			return s
		}
	case w.Hook == "watch":
		if i < len(args) && !hasFlag(args[:i], "-x", "--exec") {
			parts := make([]string, 0, len(args)-i)
			for _, v := range args[i:] {
				if v.dyn {
					f.safe = nil
					f.human = reason("human.eval-opaque", "watch of a string only known at run time")
				}
				parts = append(parts, v.val)
			}
			return a.reparse(strings.Join(parts, " "), sc, idx)
		}
	case w.Hook == "xargs":
		return c.xargs(i)
	case w.ShellWith != "" && i < len(args) && parseArgs(w.Opts, args[:i]).Has(w.ShellWith):
		return a.shellString(f, args[i], sc, idx)
	}
	if hasFlag(args[:i], w.LooksUp...) {
		f.wrapper = false
		f.safe = reason("gate.safe", lb+" -v only looks a name up")
		return summary{}
	}
	if hasFlag(args[:i], w.Process...) || w.ProcessLetters != "" && hasShort(args[:i], w.ProcessLetters) {
		return noInner(f, lb)
	}
	i += w.Lead
	if i >= len(args) {
		if w.Bare {
			return summary{}
		}
		f.safe = nil
		f.ask = reason("ask.wrapper", lb+" without a command the gate can find")
		return summary{}
	}
	a.noFunc = w.SkipsFuncs
	return a.inner(args[i:], sc, idx)
}

// ownOptions reads the wrapper's own options and returns the index of the
// first word after them. With a declaration (w.Opts), the files its flags
// write are facts (time -o FILE, --output=FILE) and a flag it lacks asks
// (SPEC §5.1): it may write or run something, and if it takes a value the
// command is read from the wrong word.
func (c *wrapCall) ownOptions() int {
	w, args := c.w, c.args
	if w.Opts == nil {
		return firstOperand(w.Values, args)
	}
	inv := parseArgs(w.Opts, args)
	for _, u := range inv.Uses {
		if v, has := valueWord(args, u); has && u.Flag.Role == argv.Write && v.val != "" {
			c.a.writeFact(c.a.resolveMaybe(v, v.val, c.sc, true), c.idx)
		}
	}
	if len(inv.Unknown) > 0 {
		c.f.safe = nil
		c.f.ask = reason("ask.flag", w.Name+" "+inv.Unknown[0]+" is a flag the gate does not know")
	}
	if len(inv.Operands) == 0 {
		return len(args)
	}
	return inv.Operands[0]
}

// runnerProgram finds where the program of a runner the table reads
// starts (arch -arm64 PROG, setarch ARCH -R PROG); without one, arch
// prints the machine and setarch starts a shell (done: f says so).
func (c *wrapCall) runnerProgram() (prog int, done bool) {
	a, f, r, lb, args, sc := c.a, c.f, c.w.Runner, c.w.Name, c.args, c.sc
	prog, unknown := r.Program(len(args), wordAt(args))
	for j := range args[:prog] {
		if n, val, ok := strings.Cut(args[j].val, "="); j > 0 && slices.Contains(r.Env, args[j-1].val) && (!ok || args[j].dyn || riskyEnv(n, val, true)) {
			a.add(&rfact{kind: protocol.FactEnv, detail: clip(args[j].val, 80), parent: -1, ask: reason("ask.env-prefix", lb+" sets "+n+", which changes what the command runs")})
			a.envCommand(n, val, sc)
		}
	}
	switch {
	case prog >= len(args) && !r.Shell && unknown == "":
		f.wrapper = false
		f.safe = reason("gate.safe", lb+" prints the machine's architecture")
		return prog, true
	case prog >= len(args):
		f.safe, f.wrapper = nil, false
		f.ask = reason("ask.unknown-command", lb+" without a program the gate can find")
		return prog, true
	case unknown != "":
		f.safe = nil
		f.ask = reason("ask.flag", lb+" "+unknown+" is a flag the gate does not know")
	}
	return prog, false
}

// flock FILE CMD writes (creates) FILE, the operand at i; flock -c CMD
// FILE (any spelling of its option -c, --command) and flock FILE -c CMD
// (the word after FILE -c or --command, as flock compares it) run CMD
// with the shell. done: s is the call's summary.
func (c *wrapCall) flock(i int) (s summary, done bool) {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	cmd, found := word{}, false
	for _, u := range parseArgs(c.w.Opts, args[:i]).Uses {
		if v, has := valueWord(args, u); has && u.Flag.Role == argv.Run {
			cmd, found = v, true
		}
	}
	if i < len(args) {
		a.writeFact(a.pathWord(args[i], sc, true), idx)
		i++
	}
	switch {
	case found:
		return a.shellString(f, cmd, sc, idx), true
	case i < len(args) && !args[i].dyn && (args[i].val == "-c" || args[i].val == "--command"):
		if i+1 < len(args) {
			return a.shellString(f, args[i+1], sc, idx), true
		}
		return summary{}, true
	}
	return summary{}, false
}

// xargs runs its command with arguments read from stdin: unknown words.
// Its options (the table's declaration) end at i: -I/-i/--replace give
// the string replaced in the command, -a FILE the file read instead of
// stdin.
func (c *wrapCall) xargs(i int) summary {
	a, idx, args, sc := c.a, c.idx, c.args, c.sc
	repl := ""
	argTaint := false
	for _, u := range parseArgs(c.w.Opts, args[:i]).Uses {
		v, has := valueWord(args, u)
		switch u.Flag.Role {
		case argv.Read:
			if has && v.val != "" {
				r := a.pathWord(v, sc, false)
				if l := a.listings[r.abs]; l != nil && !v.dyn {
					a.stdin = l // xargs -a l, l a listing this call wrote
				}
				j := a.readFact(r, idx, false)
				// the arguments are the file's contents
				argTaint = argTaint || a.facts[j].human != nil && a.facts[j].human.Code == "human.sensitive-read"
			}
		case argv.Opaque:
			switch {
			case u.Name != "-I" && u.Name != "-i" && u.Name != "--replace":
			case has:
				repl = v.val
			default:
				repl = "{}" // -i, --replace: GNU's default
			}
		}
	}
	inner := append([]word{}, args[min(i, len(args)):]...)
	if len(inner) == 0 {
		inner = []word{{val: "echo"}}
	}
	if in := a.stdin; in != nil && in.known {
		// echo / | xargs rm -rf: the arguments are known
		a.stdin = nil
		items := strings.Fields(in.text)
		if len(items) <= maxAlts {
			if repl == "" {
				for _, it := range items {
					inner = append(inner, word{val: it, glob: hasGlob(it)})
				}
				return a.inner(inner, sc, idx)
			}
			var s summary
			for _, line := range strings.Split(strings.TrimSpace(in.text), "\n") {
				one := append([]word{}, inner...)
				for j := range one {
					if !one[j].dyn {
						one[j] = word{val: strings.ReplaceAll(one[j].val, repl, line)}
					}
				}
				s.or(a.inner(one, sc, idx))
			}
			return s
		}
	}
	stdinWord := word{val: "$XARGS", dyn: true, projPaths: a.stdin != nil && a.stdin.projList, taint: argTaint,
		secretPaths: a.stdin != nil && a.stdin.secretList, cleanPaths: a.stdin != nil && a.stdin.cleanList,
		broadPaths: a.stdin != nil && a.stdin.broadList, outPaths: a.stdin != nil && a.stdin.outList}
	if repl != "" {
		for j := range inner {
			if strings.Contains(inner[j].val, repl) {
				inner[j].dyn = true
				inner[j].taint = inner[j].taint || argTaint
			}
		}
	} else {
		inner = append(inner, stdinWord)
	}
	return a.inner(inner, sc, idx)
}

// prefixRunner analyses every command the runner could start: its flags'
// values are unknown, so each later word that is not a flag is tried as the
// start of the inner command (the runner itself always asks).
func (c *wrapCall) prefix() summary {
	a, f, idx, w, args, sc := c.a, c.f, c.idx, c.w, c.args, c.sc
	a.noAlways = true
	f.wrapper = true
	f.open = reason("ask.runner", w.Name+" runs another program")
	s := a.subcmdEffects(f, idx, w.Name, args)
	start := w.Skip
	if w.Values != nil {
		start = firstOperand(w.Values, args)
	}
	if len(w.Schedules) > 0 && hasLongAbbrev(args, w.Schedules...) {
		// a timer or path trigger runs the command again later: persistence
		f.human = reason("human.persistence-write", w.Name+" schedules a command")
	}
	rest := args[min(start, len(args)):]
	if w.Hook == "screen" {
		s.or(c.screenStuff(rest))
	}
	if l := w.Log; l != nil {
		for _, u := range parseArgs(l, rest).Uses {
			if v, has := valueWord(rest, u); has && u.Flag.Role == argv.Write {
				a.writeWord(v, sc, idx) // strace -o ~/.bashrc CMD writes its trace there
			}
		}
	}
	// its flags are switches (their values unknown): each operand up to
	// "--" may be where the command starts, the words after "--" are it
	inv := parseArgs(switchesOnly, rest)
	tried := 0
	for _, i := range inv.Operands {
		if tried >= 3 || inv.Ended > 0 && i >= inv.Ended {
			break
		}
		if v := rest[i].val; v == "-" || rest[i].dyn || isAssignWord(v) {
			continue
		}
		tried++
		guessing := a.guessing
		a.guessing = true
		s.or(a.inner(rest[i:], sc, idx))
		a.guessing = guessing
	}
	switch {
	case tried >= 3 || inv.Ended == 0:
	case w.DashShell:
		// capsh … -- ARGS: ARGS go to /bin/bash (capsh -- -c CMD)
		return a.inner(append([]word{{val: "bash"}}, rest[inv.Ended:]...), sc, idx)
	default:
		s.or(a.inner(rest[inv.Ended:], sc, idx))
	}
	return s
}

// env runs its command in a changed environment or directory; env -S
// splits a string into the command (a shell-like string). Its options
// are its entry's (cmds envOpts): they end at the first operand, a lone
// "-" there is -i, and the NAME=VALUE words after them come before the
// command.
func (c *wrapCall) env() summary {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	f.wrapper = true
	inv := parseArgs(c.w.Opts, args)
	// an unknown option, or -a NAME, asks whatever the command is
	flagAsk := envFlagAsk(&inv)
	defer func() {
		if flagAsk != nil {
			f.safe, f.ask = nil, flagAsk
		}
	}()
	ignore, cwd := false, sc.cwd
	for _, u := range inv.Uses {
		switch u.Flag.Sets {
		case cmds.EnvIgnores:
			ignore = true
		case cmds.EnvChdir:
			if v, has := valueWord(args, u); has {
				cwd = a.pathWord(v, sc, false).abs
			}
			a.outsideCwd(f, "env -C", cwd)
		case cmds.EnvSplit:
			return c.envSplit(u, cwd)
		}
	}
	ops := inv.Operands
	switch {
	case inv.Ended > 0 && len(ops) > 0:
		// env -- CMD: the command's own reading takes its NAME=VALUE words
		f.safe = reason("gate.wrapper", "env runs the inner command, which is analysed")
		return a.inner(args[ops[0]:], &scope{cwd: cwd}, idx)
	case len(ops) > 0 && args[ops[0]].val == "-" && !args[ops[0]].dyn:
		ignore, ops = true, ops[1:]
	}
	for _, i := range ops {
		v := args[i].val
		n, val, eq := strings.Cut(v, "=")
		if !eq || strings.HasPrefix(v, "-") || args[i].dyn {
			f.safe = reason("gate.wrapper", "env runs the inner command, which is analysed")
			return a.inner(args[i:], &scope{cwd: cwd}, idx)
		}
		if riskyEnv(n, val, true) {
			a.add(&rfact{kind: protocol.FactEnv, detail: clip(v, 80), parent: -1, ask: reason("ask.env-prefix", n+" changes what the command runs")})
			a.envCommand(n, val, sc)
		}
	}
	switch {
	case flagAsk != nil:
		return summary{} // an unknown option or -a without its value makes env fail, or does what the gate cannot tell
	case !ignore:
		f.human = reason("human.env-dump", "env without a command prints the environment")
		return summary{taint: true}
	}
	f.safe = reason("gate.safe", "env -i with no command")
	return summary{}
}

// envSplit reads env -S STRING (u) and the words after it as one command
// line, run in cwd.
func (c *wrapCall) envSplit(u argv.Use, cwd string) summary {
	a, f, idx, args := c.a, c.f, c.idx, c.args
	v, has := valueWord(args, u)
	switch {
	case !has:
		return summary{}
	case v.dyn:
		f.human = reason("human.eval-opaque", "env -S of a string only known at run time")
		return summary{}
	}
	rest := v.val
	for _, w := range args[max(u.ValAt, u.At)+1:] {
		rest += " " + w.val
	}
	f.safe = reason("gate.wrapper", "env -S; the string is analysed")
	return a.reparse(rest, &scope{cwd: cwd}, idx)
}

// envFlagAsk is why an env call asks whatever its command: an option
// the table lacks, or one that makes it not known-safe (-a NAME); nil
// for neither.
func envFlagAsk(inv *argv.Invocation) *protocol.Reason {
	if len(inv.Unknown) > 0 {
		return reason("ask.flag", "env "+inv.Unknown[0]+" is a flag the gate does not know")
	}
	for _, u := range inv.Uses {
		if u.Flag.Effect == argv.NotSafe {
			return reason("ask.flag", "env "+u.Name+" runs the command under another name, which a multi-call program takes for the program")
		}
	}
	return nil
}

// stringRunner handles tools that run a shell string or their stdin:
// script -c, nix-shell --run, runuser -c, tmux new 'CMD', parallel CMD :::
// ARGS, at/batch (which also schedule it: persistence).
func (c *wrapCall) stringRunner() summary {
	a, f, idx, w, lb, args, sc := c.a, c.f, c.idx, c.w, c.w.Name, c.args, c.sc
	a.noAlways = true
	f.wrapper = true
	f.open = reason("ask.runner", lb+" runs another program")
	switch w.Hook {
	case "at":
		f.human = reason("human.persistence-write", lb+" schedules commands")
		if in := a.stdin; in != nil {
			a.stdin = nil
			return a.reparse(in.text, sc, idx)
		}
		return summary{}
	case "parallel":
		return c.parallel()
	case "tmux":
		return c.tmux()
	}
	var cmd []word // BSD script FILE CMD ARGS
	if w.Hook == "script" {
		var writes []word
		writes, cmd = scriptArgs(args)
		for _, v := range writes {
			a.writeWord(v, sc, idx)
		}
	}
	for i, arg := range args {
		if (arg.val == "-c" || arg.val == "--command" || arg.val == "--run" || arg.val == "--command=") && i+1 < len(args) {
			return a.shellString(f, args[i+1], sc, idx)
		}
		// script -qc CMD, -qec CMD: c ends a cluster of short options
		if v := arg.val; len(v) > 2 && v[0] == '-' && v[1] != '-' && v[len(v)-1] == 'c' && i+1 < len(args) {
			return a.shellString(f, args[i+1], sc, idx)
		}
		if strings.HasPrefix(arg.val, "--command=") || strings.HasPrefix(arg.val, "--run=") {
			_, v, _ := strings.Cut(arg.val, "=")
			return a.shellString(f, word{val: v, dyn: arg.dyn}, sc, idx)
		}
	}
	if w.Hook == "script" {
		// BSD script FILE CMD ARGS runs CMD; without one, script runs an
		// interactive shell on its stdin
		if cmd != nil {
			return a.inner(cmd, sc, idx)
		}
		return c.shell(nil)
	}
	if ops := operands(args, nil); w.Hook == "sg" && len(ops) > 1 {
		return a.shellString(f, args[ops[1]], sc, idx) // sg GROUP CMD: CMD is a shell string
	}
	if w.Values != nil {
		// runuser -u USER [--] CMD ARGS: the command after the options
		// the table declares runs as given
		if i := firstOperand(w.Values, args); i < len(args) {
			return a.inner(args[i:], sc, idx)
		}
	}
	return summary{}
}

// tmuxShellCmd are the tmux commands that take a shell command, with their
// options that take a value: the first operand is a shell string, several
// operands (tmux ≥ 3.0) an argv it execs.
var tmuxShellCmd = func() map[string]*argv.Command {
	m := map[string]*argv.Command{}
	for names, vals := range map[string]string{"new new-session": "cefFnstxy", "neww new-window": "ceFnt",
		"splitw split-window": "ceFlt", "respawn-pane respawnp respawn-window respawnw": "cet", "run run-shell": "dt",
		"pipe-pane pipep if-shell if": "t", "display-popup popup": "bcdehsStTwxy"} {
		for _, n := range strings.Fields(names) {
			m[n] = argv.Valued(vals)
		}
	}
	return m
}()

// tmuxSendKeys are tmux send-keys' options that take a value.
var tmuxSendKeys = argv.Valued("tNc")

// tmuxKeys are send-keys key names that submit the typed line.
var tmuxKeys = map[string]string{"Enter": "\n", "C-m": "\n", "C-j": "\n", "KPEnter": "\n", "Space": " ", "Tab": "\t"}

// tmux: tmux -c CMD, the shell commands of new-session/run-shell/…, and
// send-keys, whose keys a pane's shell reads as a command line. Commands
// are separated by ';' words.
func (c *wrapCall) tmux() summary {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	var s summary
	i := firstOperand(c.w.Values, args)
	for j := 0; j+1 < i; j++ { // tmux -c CMD runs CMD with the shell
		if v := args[j].val; v == "-c" || len(v) > 2 && v[0] == '-' && strings.IndexByte(v, 'c') == len(v)-1 {
			s.or(a.shellString(f, args[j+1], sc, idx))
		}
	}
	for seg := args[i:]; len(seg) > 0; {
		end := slices.IndexFunc(seg, func(w word) bool { return w.val == ";" })
		if end < 0 {
			end = len(seg)
		}
		cmd, rest := seg[0].val, seg[1:end]
		if end < len(seg) {
			seg = seg[end+1:]
		} else {
			seg = nil
		}
		if cmd == "send" || cmd == "send-keys" {
			k := firstOperand(tmuxSendKeys, rest)
			var typed strings.Builder
			dyn := false
			literal := hasShort(rest[:k], "l")
			for _, w := range rest[k:] {
				dyn = dyn || w.dyn
				v := w.val
				switch {
				case literal:
					typed.WriteString(v)
				case tmuxKeys[v] != "":
					typed.WriteString(tmuxKeys[v])
				case len(v) < 3 || v[1] != '-' || strings.IndexByte("CMS", v[0]) < 0: // C-c, M-x type no text
					typed.WriteString(v)
				}
			}
			s.or(a.shellString(f, word{val: typed.String(), dyn: dyn}, sc, idx))
			continue
		}
		vals, ok := tmuxShellCmd[cmd]
		if !ok {
			continue
		}
		k := firstOperand(vals, rest)
		switch n := len(rest) - k; {
		case n == 1 || n > 1 && (cmd == "if-shell" || cmd == "if" || strings.HasPrefix(cmd, "run")):
			s.or(a.shellString(f, rest[k], sc, idx))
		case n > 1:
			s.or(a.inner(rest[k:], sc, idx))
		}
	}
	return s
}

// screenStuff: screen -X stuff TEXT (also -p N -X stuff, -S NAME …) types
// TEXT into a window, whose shell runs each line it ends: TEXT is read as
// a shell string, \n, \r and ^M its line ends.
func (c *wrapCall) screenStuff(args []word) summary {
	for i := 0; i+2 < len(args); i++ {
		if args[i].val == "-X" && args[i+1].val == "stuff" {
			t := args[i+2]
			t.val = strings.NewReplacer(`\n`, "\n", `\r`, "\n", "^M", "\n", "^J", "\n").Replace(t.val)
			return c.a.shellString(c.f, t, c.sc, c.idx)
		}
	}
	return summary{}
}

// parallelRepl are the replacement strings parallel fills with an argument ({}, {.}, {/}, {1} …).
var parallelRepl = lazyRE(`\{[0-9]*[./#%]*/?\.?\}`)

// parallel: GNU parallel joins its command words (unquoted, so 'rm -rf {}'
// is a shell string), puts each quoted argument in place of {} or at the
// end, and runs the line with the shell. Arguments from ::::, -a FILE or
// stdin are only known at run time.
func (c *wrapCall) parallel() summary {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	cmd, vals, fromFile := args, []word(nil), false
	isSep := func(v string) bool { return strings.HasPrefix(v, ":::") && strings.Trim(v, ":+") == "" }
	if at := slices.IndexFunc(args, func(w word) bool { return isSep(w.val) }); at >= 0 {
		cmd = args[:at]
		files := false
		for _, v := range args[at:] {
			switch {
			case isSep(v.val): // ::: ARGS, :::: FILES (and the linked :::+ forms)
				files = strings.HasPrefix(v.val, "::::")
			case files:
				fromFile = true
			default:
				vals = append(vals, v)
			}
		}
	}
	i := firstOperand(c.w.Values, cmd)
	for _, w := range cmd[:i] {
		if w.val == "-a" || w.val == "--arg-file" || strings.HasPrefix(w.val, "--arg-file=") {
			fromFile = true
		}
	}
	var s summary
	if i >= len(cmd) {
		// no command: each argument (or line of stdin) is a command line
		for n, v := range vals {
			if n >= 8 {
				break
			}
			s.or(a.shellString(f, v, sc, idx))
		}
		if fromFile {
			f.human = reason("human.eval-opaque", "parallel runs command lines only known at run time")
			return s
		}
		if in := a.stdin; len(vals) == 0 && in != nil {
			a.stdin = nil
			if !in.known {
				f.human = reason("human.eval-opaque", "parallel runs command lines only known at run time")
				return s
			}
			s.or(a.reparse(in.text, sc, idx))
		}
		return s
	}
	if len(vals) > 8 {
		vals = vals[:8]
	}
	if fromFile || len(vals) == 0 {
		vals = append(vals, word{val: "$_", dyn: true})
	}
	tmpl := make([]string, 0, len(cmd)-i)
	for _, w := range cmd[i:] {
		if w.dyn {
			tmpl = nil // a command word only known at run time: analyse argv as given
			break
		}
		tmpl = append(tmpl, w.val)
	}
	for _, v := range vals {
		if tmpl == nil {
			s.or(a.inner(append(append([]word{}, cmd[i:]...), v), sc, idx))
			continue
		}
		q := `"$_"`
		if !v.dyn {
			q = shellQuote(v.val)
			if r := v.val[min(1, len(v.val)):]; strings.HasPrefix(v.val, "~") && shellQuote(r) == r {
				q = v.val // ::: ~ was expanded by the shell already
			}
		}
		line := strings.Join(tmpl, " ")
		if parallelRepl().MatchString(line) {
			line = parallelRepl().ReplaceAllLiteralString(line, q)
		} else {
			line += " " + q
		}
		s.or(a.reparse(line, sc, idx))
	}
	return s
}

// run analyses the call by its row's kind; ok is false for a call that
// runs no command (ip addr), which is decided as any program's.
func (c *wrapCall) run() (s summary, ok bool) {
	switch c.w.Wrap {
	case cmds.Privileged:
		return c.privileged(), true
	case cmds.Transparent:
		return c.transparent(), true
	case cmds.Code:
		return c.codeRunner(), true
	case cmds.Prefix:
		return c.prefix(), true
	case cmds.Package:
		return c.runs()
	case cmds.Eval:
		return c.eval(), true
	case cmds.Shell:
		return c.shell(c.args), true
	default:
		return c.stringRunner(), true
	}
}

// privileged wrappers run the command after their options (chroot's after
// its new root) as another user: SPEC §5.4 makes that human-only whatever
// the inner command; su runs a shell string (su -c CMD). Without a command
// they start a shell, which reads what is piped in.
func (c *wrapCall) privileged() summary {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	f.wrapper = true
	if c.w.Hook == "su" {
		f.human, f.ruleClears = reason("human.privileged", "su runs the command as another user"), true
		return c.su()
	}
	f.human, f.ruleClears = reason("human.privileged", c.w.Name+" runs the command with other privileges"), true
	i := firstOperand(c.w.Values, args)
	if i < len(args) {
		i = min(i+c.w.Lead, len(args))
	}
	if i < len(args) {
		return a.inner(args[i:], sc, idx)
	}
	return summary{shellSink: true}
}

// su -c CMD, --command=CMD, -cCMD, -lcCMD: CMD is a shell string.
func (c *wrapCall) su() summary {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if (v == "-c" || v == "--command" || v == "--session-command") && i+1 < len(args) {
			return a.shellString(f, args[i+1], sc, idx)
		}
		if cmd, ok := strings.CutPrefix(v, "--command="); ok {
			return a.shellString(f, word{val: cmd, dyn: args[i].dyn}, sc, idx)
		}
		if len(v) > 2 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v, 'c') > 0 && v[len(v)-1] != 'c' {
			return a.shellString(f, word{val: v[strings.IndexByte(v, 'c')+1:], dyn: args[i].dyn}, sc, idx)
		}
		if len(v) > 2 && v[0] == '-' && v[1] != '-' && v[len(v)-1] == 'c' && i+1 < len(args) {
			return a.shellString(f, args[i+1], sc, idx)
		}
	}
	return summary{shellSink: true}
}

// eval runs its words, joined, as shell code in this shell; source and .
// run a file's (analysed when the call shows it: source <(echo CMD)).
func (c *wrapCall) eval() summary {
	if c.w.Hook == "source" {
		return c.source()
	}
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	f.wrapper = true
	a.noAlways = true
	parts := make([]string, len(args))
	f.safe = reason("gate.wrapper", "eval of a literal string; the string is analysed")
	for i, w := range args {
		a.secretEnv = a.secretEnv || w.taint // eval "$(cat .env)" sets its variables
		if w.dyn {
			f.safe = nil
			f.human = reason("human.eval-opaque", "eval of a string only known at run time")
			if w.sub.downloader {
				f.human = reason("human.download-exec", "evaluates the output of a download")
			}
		}
		parts[i] = w.val
	}
	// the known part is analysed even when some of it is dynamic, so a
	// floor next to an expansion is still seen
	if len(args) == 1 && args[0].dyn {
		for _, alt := range args[0].alts {
			a.reparse(alt, sc, idx) // x='rm -rf ~'; eval "$x"
		}
	}
	return a.reparseIn(strings.Join(parts, " "), sc, idx)
}

// source FILE asks (it runs a file's code in this shell) and reads FILE:
// a secret there becomes the shell's variables.
func (c *wrapCall) source() summary {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	a.noAlways = true
	f.ask = reason("ask.source", "runs the code of a file in this shell")
	for _, w := range args {
		if w.sub.downloader {
			f.human = reason("human.download-exec", "sources the output of a download")
		}
	}
	var in *stdinSrc
	if len(args) > 0 {
		// source <(echo 'cmd'), … | . /dev/stdin: analysed like eval
		in = a.scriptFrom(args[0])
	}
	if in != nil {
		if !in.known {
			f.human = reason("human.eval-opaque", "sources commands only known at run time")
			if args[0].sub.downloader || in.download {
				f.human = reason("human.download-exec", "sources the output of a download")
			}
		}
		return a.reparseIn(in.text, sc, idx)
	}
	if len(args) > 0 {
		// source .env: its variables, unknown to the gate, may hold secrets
		g := a.facts[a.readFact(a.pathWord(args[0], sc, false), idx, false)]
		a.secretEnv = a.secretEnv || g.human != nil && g.human.Code == "human.sensitive-read"
		a.runsFetched(f, args[0], sc)
		return a.runsWritten(args[0], sc, idx)
	}
	return summary{}
}

// runs analyses the program a package runner runs: the words after its
// subcommand and options (npx PKG, npm exec PKG), or where its hook finds
// them (ip netns exec NS CMD, nix develop -c CMD, kubectl exec POD -- CMD).
// ok is false for a call that runs nothing (nix develop without -c, ip
// addr): the program itself is decided as any other.
func (c *wrapCall) runs() (s summary, ok bool) {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	switch c.w.Hook {
	case "netns":
		// ip [-4 -n NS …] netns exec NAME CMD; ip -all netns exec CMD
		rest, ok := pathRest(args, []string{"netns", "exec"}, false)
		if !ok || len(args) <= 3 {
			return s, false
		}
		return c.runFrom(rest, ipNetnsName(args)), true
	case "nix":
		// nix develop|shell … -c|--command CMD ARGS
		if i := slices.IndexFunc(args, func(w word) bool { return w.val == "-c" || w.val == "--command" }); i > 0 {
			f.open = reason("ask.runner", "runs another program")
			return a.inner(args[i+1:], sc, idx), true
		}
		return s, false
	case "container":
		// docker run IMAGE CMD, docker exec CTR CMD and the rest of the CLI
		return a.container(f, idx, args, sc), true
	case "kubectl":
		// kubectl exec POD -- CMD (or debug) runs CMD in the pod, like docker exec
		end := switchesOnly.End(len(args), wordAt(args))
		if end == 0 || !matchPath(args, []string{"exec"}, false) && !matchPath(args, []string{"debug"}, false) {
			return s, false
		}
		return c.runFrom(args, end), true
	}
	return c.runFrom(args, c.w.Skip), true
}

// runFrom: package runners (npx, devbox run, ...) run another program,
// found in args after skip words and the runner's options:
// the runner asks unless a rule names more than the runner, and the program
// is analysed too.
func (c *wrapCall) runFrom(args []word, skip int) summary {
	a, f, idx, sc := c.a, c.f, c.idx, c.sc
	a.noAlways = true
	f.wrapper = true
	f.open = reason("ask.runner", "runs another program")
	rest := args[skip:]
	if skip > 0 && c.w.ShellWith != "" && args[skip-1].val == c.w.ShellWith && len(rest) > 0 {
		// yarn exec make test: Yarn's shell runs the words, joined
		return a.shellString(f, joinWords(rest), sc, idx)
	}
	for j, w := range rest {
		if w.val == "-c" || w.val == "--call" {
			if j+1 < len(rest) {
				return a.shellString(f, rest[j+1], sc, idx)
			}
			return summary{}
		}
		if c.w.ShellWith != "" && (w.val == c.w.ShellWith || len(w.val) > 3 && strings.HasPrefix(c.w.ShellWith, w.val)) {
			// pnpm exec --shell-mode make test: the words after it join
			// into the string its shell runs (nopt takes --shell-mo too)
			return a.shellString(f, joinWords(rest[j+1:]), sc, idx)
		}
	}
	i := firstOperand(c.w.Values, rest)
	if i < len(rest) {
		return a.inner(rest[i:], sc, idx)
	}
	return summary{}
}

// shellString analyses the string a shell -c (or su -c, flock -c) runs.
func (a *analyzer) shellString(f *rfact, w word, sc *scope, idx int) summary {
	a.noAlways = true
	f.wrapper = true
	if w.dyn {
		f.safe = nil
		f.human = reason("human.eval-opaque", "runs a shell string only known at run time")
		if w.sub.downloader {
			f.human = reason("human.download-exec", "runs the output of a download in a shell")
		}
		for _, alt := range w.alts {
			a.reparse(alt, sc, idx)
		}
		return a.reparse(w.val, sc, idx)
	}
	if f.ask == nil && f.open == nil {
		f.safe = reason("gate.wrapper", "runs a literal shell string; the string is analysed")
	}
	return a.reparse(w.val, sc, idx)
}

func (c *wrapCall) shell(args []word) summary {
	a, f, idx, sc := c.a, c.f, c.idx, c.sc
	a.noAlways = true
	i, cmode, stdin := c.shellOptions(args)
	for _, w := range args {
		if w.sub.downloader {
			f.human = reason("human.download-exec", "a shell runs the output of a download")
		}
	}
	if cmode {
		if i >= len(args) {
			f.ask = reason("ask.interpreter", "shell -c without a string")
			return summary{}
		}
		// sh -c 'rm -rf "$0"' ~: the words after the string are $0, $1, …
		var saved []*varVals
		for n, w := range args[i+1 : min(len(args), i+10)] {
			name := strconv.Itoa(n)
			saved = append(saved, a.vals[name])
			a.setVals(name, w.values())
		}
		// … and "$@" the words after $0 (sh -c '"$@"' _ rm -rf ~); a
		// shift inside only drops some, so all of them is the most it runs
		restore := a.positionalAt(args[min(len(args), i+2):])
		s := a.shellString(f, args[i], sc, idx)
		restore()
		for n, v := range saved {
			a.setVals(strconv.Itoa(n), v)
		}
		return s
	}
	if i < len(args) && !stdin && !args[i].dyn && isStdinPath(args[i].val) {
		stdin = true // bash /dev/stdin <<< 'cmd' reads the script from stdin
	}
	if i < len(args) && !stdin && args[i].proc && args[i].procText != nil {
		// bash <(echo 'cmd'): the script is the substitution's output
		a.stdin = args[i].procText
		stdin = true
	}
	if i < len(args) && !stdin {
		f.ask = reason("ask.interpreter", "runs a shell script")
		a.readFact(a.pathWord(args[i], sc, false), idx, false)
		a.runsFetched(f, args[i], sc)
		return a.runsWritten(args[i], sc, idx)
	}
	if in := a.stdin; in != nil {
		// a here-doc, here-string or pipe is the script: analyse its known
		// part, like sh -c
		a.stdin = nil
		if !in.known {
			if f.human == nil {
				f.human = reason("human.eval-opaque", "a shell runs commands only known at run time")
			}
			if in.download {
				f.human = reason("human.download-exec", "a shell runs downloaded code")
			}
			if f.human != nil && strings.TrimSpace(in.text) == "$_" {
				a.noAlways = true
				return summary{shellSink: true}
			}
		} else if f.ask == nil && f.open == nil {
			f.safe = reason("gate.wrapper", "a shell reading a literal script; the script is analysed")
		}
		f.wrapper = true
		s := a.reparse(in.text, sc, idx)
		s.shellSink = !in.known
		return s
	}
	f.ask = reason("ask.interpreter", "a shell reading commands from its input")
	return summary{shellSink: true}
}

// shellOptions reads a shell's options by its declaration (+o NAME as -o
// NAME) and returns the index of the first word after them: the -c string
// or the script, which stdin is with -s, -i or "-". A startup file it
// sources is code the gate must see (bash --rcfile FILE -i), a file it
// writes a write (fish --profile FILE), a command it runs first (fish -C
// CMD) not known-safe, and an option the declaration lacks asks.
func (c *wrapCall) shellOptions(args []word) (i int, cmode, stdin bool) {
	opts := c.w.Opts
	if opts == nil || c.w.Wrap != cmds.Shell {
		opts = cmds.WrapperOf("sh").Opts // script's shell
	}
	inv := opts.ParseAt(len(args), func(i int) (string, bool) {
		if v := args[i].val; len(v) > 1 && v[0] == '+' {
			return "-" + v[1:], args[i].dyn
		}
		return args[i].val, args[i].dyn
	})
	i = len(args)
	if len(inv.Operands) > 0 {
		i = inv.Operands[0]
	}
	if i < len(args) && args[i].val == "-" && !args[i].dyn {
		i, stdin = i+1, true
	}
	for _, u := range inv.Uses {
		switch u.Name {
		case "-c", "--command":
			cmode = true
		case "-s", "-i", "--interactive":
			stdin = true
		}
		c.shellFlag(opts.Name, u, args)
	}
	if len(inv.Unknown) > 0 {
		c.f.ask = reason("ask.flag", opts.Name+" "+inv.Unknown[0]+" is a flag the gate does not know")
	}
	return i, cmode, stdin
}

// shellFlag is what a shell's option does with its value.
func (c *wrapCall) shellFlag(sh string, u argv.Use, args []word) {
	a, f, idx, sc := c.a, c.f, c.idx, c.sc
	w, has := valueWord(args, u)
	switch {
	case !has:
	case u.Flag.Role == argv.Source:
		if !(w.proc && w.procText != nil) && (w.dyn || !isStdinPath(w.val)) {
			f.ask = reason("ask.source", sh+" sources "+clip(w.val, 80)+", code the gate does not see")
		}
		a.startupFile(w, sc, idx)
	case u.Flag.Role == argv.Write:
		a.writeFact(a.resolveMaybe(w, w.val, sc, true), idx)
	case u.Flag.Role == argv.Run:
		f.ask = reason("ask.interpreter", sh+" "+u.Name+" runs a command the gate does not read")
	}
}

// startupFile analyses a file a shell sources before its commands (bash
// --rcfile FILE, BASH_ENV=FILE, ENV=FILE): a <(…) or /dev/stdin text, or a
// script this call wrote.
func (a *analyzer) startupFile(w word, sc *scope, idx int) {
	in := a.scriptFrom(w)
	if in == nil {
		a.runsWritten(w, sc, idx)
		return
	}
	if !in.known {
		a.humanFact("human.eval-opaque", "a shell sources a file only known at run time")
	}
	a.reparse(in.text, sc, idx)
}

// scriptFrom is the script a command reads from the file operand w when
// that file is its stdin (python3 /dev/stdin <<< CODE, sed -f /dev/stdin,
// source /dev/stdin) or a <(…) substitution; nil for an ordinary file. It
// consumes the stdin; a stdin the gate did not see is text only known at
// run time.
func (a *analyzer) scriptFrom(w word) *stdinSrc {
	switch {
	case w.proc && w.procText != nil:
		if w.sub.downloader {
			a.humanFact("human.download-exec", "a program runs downloaded code")
		}
		return w.procText
	case !w.dyn && isStdinPath(w.val):
		in := a.stdinCode()
		if in == nil {
			in = &stdinSrc{text: "$_"}
		}
		return in
	}
	return nil
}

// stdinCode consumes the stdin of a command that reads its code or
// commands there (sed -f -, ed, sqlite3, make -f -, gdb -x /dev/stdin):
// a download fed to it is download-then-execute, as for a shell.
func (a *analyzer) stdinCode() *stdinSrc {
	in := a.stdin
	a.stdin = nil
	if in != nil && in.download && !in.known {
		a.humanFact("human.download-exec", "a program runs downloaded code read from stdin")
	}
	return in
}

// isStdinPath reports a file name that is the process's stdin.
func isStdinPath(p string) bool {
	return p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0"
}
