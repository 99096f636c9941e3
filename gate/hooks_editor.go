package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/gate/internal/scripts"
	"github.com/perm-peer/perm-peer/protocol"
)

// exValueFlags are vi's and ed's options that take a value.
var exValueFlags = map[string]bool{"-c": true, "--cmd": true, "-S": true, "-u": true, "-i": true, "-T": true, "-p": true}

// lessOptions analyses less options (arguments, $LESS, $MORE, lesskey
// text): a +!CMD initial command ending in a newline runs CMD when the
// pager starts, and the #env section of --lesskey-content or
// $LESSKEY_CONTENT sets LESSOPEN and the like.
func (a *analyzer) lessOptions(opts string, sc *scope, idx int) {
	for rest := opts; ; {
		i := strings.Index(rest, "+!")
		if i < 0 {
			break
		}
		rest = rest[i+2:]
		a.reparse(strings.FieldsFunc(rest+"\n", func(r rune) bool { return r == '\n' || r == '\r' })[0], sc, idx)
	}
	if i := strings.Index(opts, "--lesskey-content="); i >= 0 {
		a.lesskeyText(opts[i+len("--lesskey-content="):], sc)
	}
}

// lesskeyText analyses lesskey source: NAME=VALUE lines of its #env
// section set the pager's environment.
func (a *analyzer) lesskeyText(text string, sc *scope) {
	env := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			env = line == "#env"
			continue
		}
		if n, v, ok := strings.Cut(line, "="); ok && env {
			n, v = strings.TrimSpace(n), strings.TrimSpace(v)
			if riskyEnv(n, v, true) {
				a.add(&rfact{kind: protocol.FactEnv, detail: n + "=" + clip(v, 80), parent: -1,
					ask: reason("ask.env-prefix", n+" changes what the command runs")})
				a.envCommand(n, v, sc)
			}
		}
	}
}

// manLookup says man is given page names, sections and search flags
// only (man ls, man 1 printf, man -k socket): no pager, browser, local
// file (-l, a path) or other option that runs or reads something else.
func manLookup(args []word) bool {
	if len(args) == 0 {
		return false
	}
	for _, w := range args {
		switch v := w.val; {
		case w.dyn || w.glob || v == "":
			return false
		case v == "-k" || v == "-f" || v == "-w" || v == "-a" || v == "--apropos" || v == "--whatis" || v == "--where" || v == "--path" || v == "--all":
		case v[0] == '-' || v[0] == '.' || strings.ContainsAny(v, "/\\"):
			return false
		}
	}
	return true
}

// exCommand analyses one ex/vim/ed command line: !CMD runs a shell
// command, w FILE writes, r FILE reads. Commands after a | run too
// (set nocp | !CMD), a range may precede a filter (%!CMD), exe runs its
// strings, lua/python/perl/ruby run code, and system(), jobstart() and
// :terminal run commands.
func (a *analyzer) exCommand(f *rfact, idx int, c string, sc *scope) {
	for {
		a.exOne(f, idx, c, sc)
		j := strings.IndexByte(c, '|')
		if j < 0 {
			return
		}
		c = c[j+1:]
	}
}

// exOne analyses one ex command, as package scripts' ExCommand reads it.
func (a *analyzer) exOne(f *rfact, idx int, c string, sc *scope) {
	x := scripts.ExCommand(c)
	if inlineShellOut().MatchString(x.Line) {
		f.ask = reason("ask.flag", "the editor runs a command")
		a.inlineCode(f, idx, "vim", x.Line, sc) // system("…"), jobstart([…])
	}
	switch x.Kind {
	case scripts.ExCode:
		f.ask = reason("ask.flag", "the editor runs "+x.Lang+" code")
		a.inlineCode(f, idx, x.Lang, x.Arg, sc)
	case scripts.ExExecute:
		// exe "!cmd": the strings are ex commands
		for _, l := range codeLiterals(x.Line, false) {
			a.exCommand(f, idx, strings.TrimPrefix(l, "normal "), sc)
		}
	case scripts.ExTerminal:
		f.ask = reason("ask.flag", "the editor runs a command")
		a.reparse(x.Arg, sc, idx)
	case scripts.ExShell:
		a.reparse(x.Arg, sc, idx)
	case scripts.ExSubshell:
		f.ask = reason("ask.flag", "the editor runs a command")
	case scripts.ExWrite:
		a.writeWord(word{val: x.Arg}, sc, idx)
	case scripts.ExRead:
		a.readWord(word{val: x.Arg}, sc, idx, false)
	}
}

// exEditor reads ed, ex and vi by the hook their entry names: ex (ed
// and ex, driven by commands on stdin), vi, or view (vi that only reads).
func (c *plainCall) exEditor() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	hook := c.spec.Hook
	// -c CMD, +CMD, --cmd CMD and an ed script on stdin are ex commands
	for i, w := range args {
		switch {
		case (w.val == "-c" || w.val == "--cmd") && i+1 < len(args):
			a.exCommand(f, idx, args[i+1].val, sc)
		case strings.HasPrefix(w.val, "+") && len(w.val) > 1:
			a.exCommand(f, idx, w.val[1:], sc)
		case (w.val == "-S" || w.val == "-u") && i+1 < len(args):
			a.readWord(args[i+1], sc, idx, false) // a script it sources
		}
	}
	// an editor driven by commands, not by a person: ed and ex read
	// them from stdin, vim from -c, +CMD, -s or -e
	scripted := hook == "ex" || hasFlag(args, "-s", "-es", "-e", "-c", "--cmd", "-S") ||
		slices.ContainsFunc(args, func(w word) bool { return len(w.val) > 1 && w.val[0] == '+' })
	if a.stdin != nil && (hook == "ex" || hasFlag(args, "-s", "-es", "-e")) {
		in := a.stdinCode()
		for _, line := range strings.Split(in.text, "\n") {
			a.exCommand(f, idx, line, sc)
		}
	}
	for _, i := range operands(args, exValueFlags) {
		if strings.HasPrefix(args[i].val, "+") {
			continue
		}
		a.readWord(args[i], sc, idx, false)
		if scripted && hook != "view" {
			a.writeWord(args[i], sc, idx) // commands given up front may write what it opens
		}
	}
}

// emacs reads --eval code and -l files; its operands are files it opens.
func (c *plainCall) emacs() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	ops := operands(args, nil)
	for i, w := range args {
		v := w.val
		if (v == "--eval" || v == "-eval" || v == "--execute" || v == "-l" || v == "--load") && i+1 < len(args) {
			if v == "-l" || v == "--load" {
				a.readWord(args[i+1], sc, idx, false)
				continue
			}
			a.elisp(f, idx, args[i+1].val, sc)
		} else if x, ok := strings.CutPrefix(v, "--eval="); ok {
			a.elisp(f, idx, x, sc)
		}
	}
	for _, i := range ops {
		a.readWord(args[i], sc, idx, false)
	}
}

// gdb reads the commands gdb is given: -ex, -eval-command and -x files.
func (c *plainCall) gdb() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	for i, w := range args {
		v := strings.TrimLeft(w.val, "-")
		switch {
		case v == "args" && strings.HasPrefix(w.val, "-") && i+1 < len(args):
			// gdb --args PROG ARGS…: the program it debugs, run by -ex run
			// (or the user's run), with its arguments; the rest are its words
			c.s.or(a.inner(args[i+1:], sc, idx))
			return
		case (v == "ex" || v == "iex" || v == "eval-command") && i+1 < len(args):
			a.gdbCommand(f, args[i+1].val, sc, idx)
		case strings.HasPrefix(v, "eval-command="):
			a.gdbCommand(f, strings.TrimPrefix(v, "eval-command="), sc, idx)
		case (v == "x" || v == "ix" || v == "command") && i+1 < len(args):
			if in := a.scriptFrom(args[i+1]); in != nil {
				for _, line := range strings.Split(in.text, "\n") {
					a.gdbCommand(f, line, sc, idx) // gdb -x /dev/stdin
				}
			} else {
				a.readWord(args[i+1], sc, idx, false)
			}
		}
	}
}

// gdbCommand analyses a gdb command (package scripts' Gdb): the code it
// runs, in gdb or in the debugged process, and the shell commands.
func (a *analyzer) gdbCommand(f *rfact, c string, sc *scope, idx int) {
	switch g := scripts.Gdb(c); {
	case g.Lang != "":
		a.inlineCode(f, idx, g.Lang, g.Code, sc)
	case g.Runs:
		a.reparse(g.Run, sc, idx)
	case g.Write != "":
		a.writeWord(word{val: g.Write}, sc, idx)
	}
}

// lldb runs commands and programs: the program it debugs is analysed, and
// its summary returned.
func (c *plainCall) lldb() summary {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	f.ask = reason("ask.interpreter", "lldb runs commands and programs")
	shell, python, files, target := lldbArgs(args)
	for _, cmd := range shell {
		a.reparse(cmd, sc, idx)
	}
	for _, code := range python {
		a.inlineCode(f, idx, "python", code, sc)
	}
	for _, w := range files {
		a.readWord(w, sc, idx, false)
	}
	if target != nil {
		return a.inner(target, sc, idx)
	}
	return summary{}
}

// man only shows manual pages, unless -P or -H names a program.
func (c *plainCall) man() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	if manLookup(args) {
		f.safe = reason("gate.safe", "man only shows or searches manual pages")
	}
	for _, w := range optionValues(args, 'P', "--pager") {
		f.ask = reason("ask.flag", "man -P runs a pager command")
		a.reparse(w.val, sc, idx)
	}
	for _, w := range optionValues(args, 'H', "--html") {
		a.reparse(w.val, sc, idx)
	}
}

// elisp analyses an emacs --eval expression: the strings of a
// shell-command or process call are shell commands.
func (a *analyzer) elisp(f *rfact, idx int, expr string, sc *scope) {
	f.ask = reason("ask.flag", "emacs evaluates code")
	if strings.Contains(expr, "shell-command") || strings.Contains(expr, "process") {
		for _, l := range codeLiterals(expr, false) {
			a.reparse(l, sc, idx)
		}
	}
	for _, l := range codeLiterals(expr, false) {
		if r := a.resolvePath(l, sc.cwd, true); pathLiteral(l) && strings.Contains(expr, "write") {
			a.writeFact(r, idx)
		}
	}
}

// lldbArgs reads lldb's command line: the shell commands and the Python
// its commands run (-o/-O/-k and their long names), the command files it
// sources (-s/-S/-K) and the program it debugs (first operand or after --),
// which run or process launch starts.
func lldbArgs(args []word) (shell, python []string, files, target []word) {
	for _, l := range []struct {
		letter byte
		long   string
	}{{'o', "--one-line"}, {'O', "--one-line-before-file"}, {'k', "--one-line-on-crash"}} {
		for _, w := range optionValues(args, l.letter, l.long) {
			switch verb, rest, _ := strings.Cut(strings.TrimSpace(w.val), " "); verb {
			case "script":
				python = append(python, rest)
			case "shell":
				shell = append(shell, rest)
			case "platform":
				// platform shell [-h HOST] [-t SEC] [--] CMD
				if c, ok := strings.CutPrefix(strings.TrimSpace(rest), "shell"); ok {
					if _, after, ok := strings.Cut(c, "-- "); ok {
						c = after
					}
					shell = append(shell, c)
				}
			}
		}
	}
	for _, l := range []struct {
		letter byte
		long   string
	}{{'s', "--source"}, {'S', "--source-before-file"}, {'K', "--source-on-crash"}} {
		files = append(files, optionValues(args, l.letter, l.long)...)
	}
	if ops := parseArgs(cmds.Lldb, args).Operands; len(ops) > 0 {
		target = args[ops[0]:]
	}
	return shell, python, files, target
}

// cmakeE analyses cmake -E TOOL ARGS as the command it stands for.
func (a *analyzer) cmakeE(f *rfact, idx int, args []word, sc *scope) {
	as := map[string][]string{"rm": {"rm"}, "remove": {"rm", "-f"}, "remove_directory": {"rm", "-rf"},
		"copy": {"cp"}, "copy_if_different": {"cp"}, "copy_directory": {"cp", "-r"}, "copy_directory_if_different": {"cp", "-r"},
		"cat": {"cat"}, "rename": {"mv"}, "make_directory": {"mkdir", "-p"}, "touch": {"touch"}, "touch_nocreate": {"touch"},
		"create_symlink": {"ln", "-s"}, "create_hardlink": {"ln"}, "tar": {"tar"}, "env": {"env"}, "echo": {"echo"},
		"sha256sum": {"sha256sum"}, "md5sum": {"md5sum"}, "compare_files": {"cmp"}, "true": {"true"}, "false": {"false"}}
	tool := args[0].val
	if tool == "chdir" && len(args) > 2 {
		a.inner(args[2:], &scope{cwd: a.pathWord(args[1], sc, false).abs}, idx)
		return
	}
	cmd, ok := as[tool]
	if !ok {
		f.ask = reason("ask.flag", "cmake -E "+tool)
		return
	}
	words := make([]word, 0, len(cmd)+len(args))
	for _, c := range cmd {
		words = append(words, word{val: c})
	}
	a.inner(append(words, args[1:]...), sc, idx)
}
