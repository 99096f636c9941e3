// engine.go runs a simple command the walk found through the families of
// the gate's knowledge (plainCall): the builtins, the host's state, the
// readers and queries the table declares, the searches, the file tools,
// the tools and hooks named by their entries, and what a command prints.

package gate

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
)

func (a *analyzer) plain(f *rfact, idx int, lb string, args []word, sc *scope) summary {
	c := plainCall{a: a, f: f, idx: idx, lb: lb, args: args, sc: sc, spec: cmds.Lookup(lb)}
	c.assigns()
	c.s.or(a.subcmdEffects(f, idx, lb, args))
	switch { // the first family with an arm for the command decides it
	case c.builtin(), c.hostState(), c.readers(), c.queries(), c.searches(), c.fileTool(), c.tool(), c.files(), c.drops(), c.builds():
	}
	if c.done {
		return c.s // jobs -x: the inner command's summary
	}
	c.prints()
	c.sends()
	c.exfil()
	return c.s
}

// plainCall is one command plain() decides: its fact, words and scope,
// and the summary built so far. Its arms are grouped by family, in the
// order plain's one switch had them, so the first arm that matches wins.
type plainCall struct {
	a    *analyzer
	f    *rfact
	idx  int
	lb   string
	args []word
	sc   *scope
	s    summary
	done bool // s is the call's summary and nothing after the arms applies
	// spec is the program's table entry, nil when the table has none
	spec *argv.Command
	// parsed is args parsed by spec, once (inv), when isParsed; kept by
	// value, so that parsing costs no allocation of its own
	parsed   argv.Invocation
	isParsed bool
	// listing is what its output lists, as its hook says (a search's
	// -l, fd), for prints
	listing nameListing
}

// inv is the call's words parsed by its table entry, which it must have.
func (c *plainCall) inv() *argv.Invocation {
	if !c.isParsed {
		c.parsed, c.isParsed = parseArgs(c.spec, c.args), true
	}
	return &c.parsed
}

// uses says a flag of effect e is among the call's (never without an
// entry).
func (c *plainCall) uses(e argv.Effect) bool {
	return c.spec != nil && slices.ContainsFunc(c.inv().Uses, func(u argv.Use) bool { return u.Flag.Effect == e })
}

// changesVars says program name, run in this shell, may change its
// variables, as its entry says: a builtin that sets or unsets those its
// words name (read, mapfile, getopts, unset) or defines code run later
// (trap, alias: argv.State), one that assigns by a flag (printf -v), a
// wrapper that runs shell code here (eval, source) or a builtin (command,
// builtin: cmds.Wrapper's InShell), or a declaration builtin.
func changesVars(name string) bool {
	if declares(name) {
		return true
	}
	if spec := cmds.Lookup(name); spec != nil {
		switch spec.State {
		case argv.ReadsLine, argv.ReadsLines, argv.SetsVars, argv.UnsetsVars, argv.DefinesCode:
			return true
		}
		if slices.ContainsFunc(spec.Flags, func(f argv.Flag) bool { return f.Role == argv.Assigns }) {
			return true
		}
	}
	w := cmds.WrapperOf(name)
	return w != nil && (w.Wrap == cmds.Eval || w.InShell)
}

// stateOf is what builtin name does to the shell's variables (its
// entry's argv.State), NoState for a program the table does not have.
func stateOf(name string) argv.State {
	if spec := cmds.Lookup(name); spec != nil {
		return spec.State
	}
	return argv.NoState
}

// readsInput says builtin name sets the variables its words name to what
// it reads (read NAME…, mapfile ARRAY: argv.State).
func readsInput(name string) bool {
	st := stateOf(name)
	return st == argv.ReadsLine || st == argv.ReadsLines
}

// inShellBuiltin is the program a call runs in this shell, as the shell
// reads its name (\read and 're'ad are read), and the words after it:
// past the wrappers that run a builtin here (command, builtin: cmds.Wrapper
// InShell) and their options as their entries declare them; "" when a
// word is only known at run time, an option is not declared, or the call
// only looks a name up (command -v read).
func inShellBuiltin(args []*syntax.Word) (string, []*syntax.Word) {
	for len(args) > 0 {
		name, known := litText(args[0])
		w := cmds.WrapperOf(name)
		switch {
		case !known:
			return "", nil
		case w == nil || !w.InShell:
			return name, args[1:]
		}
		rest := args[1:]
		if w.Opts == nil {
			args = rest
			continue
		}
		inv := w.Opts.ParseAt(len(rest), func(i int) (string, bool) { v, ok := litText(rest[i]); return v, !ok })
		if len(inv.Unknown) > 0 || len(inv.Operands) == 0 || slices.ContainsFunc(inv.Uses, func(u argv.Use) bool { return slices.Contains(w.LooksUp, u.Name) }) {
			return "", nil
		}
		args = rest[inv.Operands[0]:]
	}
	return "", nil
}

// movesArgs says command name may move or replace a function's
// positional parameters: shift and set (argv.State MovesArgs), a wrapper
// that runs shell code here (eval, source) or another command that may
// be one of them (command, builtin, exec: cmds.Wrapper's SkipsFuncs).
func movesArgs(name string) bool {
	if stateOf(name) == argv.MovesArgs {
		return true
	}
	w := cmds.WrapperOf(name)
	return w != nil && (w.Wrap == cmds.Eval || w.SkipsFuncs)
}

// keepsRedirs says command name, alone, makes its redirections the
// shell's own (exec 3<f: cmds.Wrapper's KeepsRedirs).
func keepsRedirs(name string) bool {
	w := cmds.WrapperOf(name)
	return w != nil && w.KeepsRedirs
}

// locates says program name with flag ("" for none) only prints where
// the program its operand names is (argv.Command's Locates: which, type
// -P; cmds.Wrapper's LooksUp: command -v).
func locates(name, flag string) bool {
	if spec := cmds.Lookup(name); spec != nil && slices.Contains(spec.Locates, flag) {
		return true
	}
	w := cmds.WrapperOf(name)
	return flag != "" && w != nil && slices.Contains(w.LooksUp, flag)
}

// printsToplevel says PROG SUB FLAG prints the root of the work tree
// (git rev-parse --show-toplevel): a program of the git hook whose
// subcommand's table row has FLAG as its Toplevel.
func printsToplevel(prog, sub, flag string) bool {
	t := cmds.ToolOf(prog)
	s := cmds.GitSubOf(sub)
	return t != nil && t.Hook == "git" && s != nil && s.Toplevel != "" && s.Toplevel == flag
}

// printsWorkDir says program name prints the working directory (its
// entry's Output is argv.WorkDir: pwd).
func printsWorkDir(name string) bool {
	spec := cmds.Lookup(name)
	return spec != nil && spec.Output == argv.WorkDir
}

// declares says word w, a command's first, is a declaration builtin
// (export, declare, local, readonly, typeset) as the shell's grammar
// reads one: a DeclClause, unless an assignment comes before it (x=1
// export f=2 is a call of export).
func declares(w string) bool {
	if w == "" || strings.ContainsAny(w, " \t\n;&|<>()$`'\"\\") {
		return false
	}
	p := parserPool.Get().(*syntax.Parser)
	defer parserPool.Put(p)
	f, err := p.Parse(strings.NewReader(w+" x"), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	_, ok := f.Stmts[0].Cmd.(*syntax.DeclClause)
	return ok
}

// setsAny says a flag of the call sets one of sets (argv.Flag's Sets).
func (c *plainCall) setsAny(sets ...argv.Sets) bool {
	return c.spec != nil && slices.ContainsFunc(c.inv().Uses, func(u argv.Use) bool { return slices.Contains(sets, u.Flag.Sets) })
}

// filter is what the program prints of the lines it reads.
func (c *plainCall) filter() argv.Filter {
	if c.spec == nil {
		return argv.NoFilter
	}
	return c.spec.Filter
}

// is says the program's table entry is of class cl.
func (c *plainCall) is(cl argv.Class) bool { return c.spec != nil && c.spec.Class == cl }

// hook is the hook the program's table entry names, "" for none.
func (c *plainCall) hook() string {
	if c.spec == nil {
		return ""
	}
	return c.spec.Hook
}

// safe makes the command known-safe.
func (c *plainCall) safe(why string) { c.f.safe = reason("gate.safe", why) }

// installs says an installer's call installs (cmds/installers.go).
func (c *plainCall) installs() bool {
	first := ""
	if len(c.args) > 0 {
		first = c.args[0].val
	}
	return cmds.InstallerOf(c.lb).Installs(first, len(c.args))
}

// hostState reads the commands that change what runs later or the
// system, or dump the environment: direnv allow, hook installers,
// sysctl NAME=VALUE, printenv.
// It reports whether one of its arms matched.
func (c *plainCall) hostState() bool {
	a, f, lb, args := c.a, c.f, c.lb, c.args
	switch {
	case c.is(argv.Installer) && c.installs():
		f.human = reason("human.persistence-write", cmds.InstallerOf(lb).Why)
	case c.is(argv.Environ):
		// printenv NAME… and envsubst '$NAME…' print those variables only,
		// like echo "$NAME": human-only for the whole environment or a name
		// that holds a secret
		ops := operands(args, nil)
		switch {
		case hasFlag(args, "-v", "--variables") && unknownFlag(f.argv) == "": // envsubst's, not an error of printenv's
			c.safe(lb + " -v lists the names a format holds")
		case len(ops) == 0 || slices.ContainsFunc(ops, func(i int) bool { return args[i].dyn || namesSecretVar(args[i].val, a.secrets) }):
			f.human = reason("human.env-dump", "prints the environment")
			c.s.taint = true
		default:
			c.safe(lb + " prints the named variables")
		}
	case c.hook() == "sysctl" && slices.ContainsFunc(args, func(w word) bool { return strings.Contains(w.val, "=") }):
		// sysctl NAME=VALUE writes /proc/sys like -w does
		f.human = reason("human.system-write", "sysctl changes a kernel setting")
	default:
		return false
	}
	return true
}

// namesSecretVar reports an operand of printenv (NAME) or envsubst (a
// format, '$A ${B}') that names a variable holding a secret.
func namesSecretVar(op string, secrets map[string]bool) bool {
	if secretVarName(op) || secrets[op] {
		return true
	}
	for _, m := range shellVarRef().FindAllStringSubmatch(op, -1) {
		if n := m[1] + m[2]; secretVarName(n) || secrets[n] {
			return true
		}
	}
	return false
}

var shellVarRef = lazyRE(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// readers reads the programs that read or print: the tools with a
// language of their own (otherTool), the programs whose words are data,
// the table's readers, pagers, block tools.
// It reports whether one of its arms matched.
func (c *plainCall) readers() bool {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	s := &c.s
	switch {
	case c.otherTool():
	case c.is(argv.Data):
		c.data()
	case cmds.Reader(lb) != nil:
		if out := a.reader(f, idx, lb, args, sc); out != nil {
			s.out = out // cat with no operand passes its stdin on
		}
	case c.is(argv.Pager):
		// pagers and editors show or open their files: reads, never known-safe
		for _, i := range operands(args, nil) {
			if !strings.HasPrefix(args[i].val, "+") {
				a.readWord(args[i], sc, idx, false)
			}
		}
		if c.hook() == "less" {
			for _, w := range args {
				a.lessOptions(w.val, sc, idx)
			}
		}
	case c.is(argv.Disk) && blockChanges(cmds.BlockToolOf(lb), args):
		for _, w := range args {
			if r := a.resolveMaybe(w, w.val, sc, true); r.known && (diskDevice(r.abs) || diskDevice(r.real)) {
				f.floor = reason("floor.disk-write", lb+" rewrites a disk device")
			}
		}
	default:
		return false
	}
	return true
}

// data reads a program whose words are data (argv.Data) by its entry:
// the files its flags read, what it prints of its words or tells of them,
// and the flags and operands that make it not known-safe.
func (c *plainCall) data() {
	a, f, lb, args := c.a, c.f, c.lb, c.args
	inv := c.inv()
	safe := c.spec.OperandEffect != argv.NotSafe || !slices.ContainsFunc(inv.Operands, func(i int) bool {
		return c.spec.FormatPrefix == 0 || !strings.HasPrefix(args[i].val, string(c.spec.FormatPrefix))
	})
	env := ""
	for _, u := range inv.Uses {
		if w, has := valueWord(args, u); has && u.Flag.Role == argv.Read {
			a.readWord(w, c.sc, c.idx, false) // date -f: error messages echo the file
		}
		switch u.Flag.Effect {
		case argv.NotSafe:
			safe = false
		case argv.ShowsEnv:
			env = strings.Fields(u.Flag.Names)[0]
		}
	}
	if out := printed(c.spec, args, c.sc.cwd); out != nil {
		c.s.out = out
	}
	if secret := slices.ContainsFunc(args, func(w word) bool { return w.secretVar }); secret {
		switch c.spec.Output {
		case argv.Echoed, argv.Formatted:
			f.human = reason("human.env-dump", lb+" prints a variable that holds a secret")
			c.s.taint = true
		case argv.Status:
			// exit $(( 36#${KEY:3:1} )): the status shows a byte of it
			f.human = reason("human.env-dump", lb+" returns a variable that holds a secret as its status")
		}
	}
	if c.spec.Output == argv.Answer && secretCompare(args) {
		// [ "${TOKEN:0:1}" = s ] && echo y: a yes/no answer about the
		// value (see testSecret)
		f.human = reason("human.env-dump", lb+" compares a variable that holds a secret with a pattern")
	}
	switch {
	case env != "":
		f.human = reason("human.env-dump", lb+" with "+env+" prints every process's environment")
		c.s.taint = true
	case flagAtRunTime(c.spec, args, inv):
		f.ask = reason("ask.flag", lb+" reads a word only known at run time where it takes flags")
	case safe:
		c.safe(lb + " is read-only")
	}
}

// flagAtRunTime says a word only known at run time stands where a program
// with flags that act (actsOnFlags) reads flags, so the flags the call has are unknown:
// X=-f.env; date $X reads .env, X=eww; ps $X prints the environment. A
// program whose undeclared words are data (printf) reads flags before its
// first operand only, as bash's builtins do; one with BSD letters (ps e)
// reads them in any operand.
func flagAtRunTime(spec *argv.Command, args []word, inv *argv.Invocation) bool {
	if !actsOnFlags(spec) {
		return false // uname $X: whatever flag it is, it only prints
	}
	if spec.Unknown == argv.Words {
		return len(args) > 0 && mayBeFlag(args[0], false)
	}
	dashless := slices.ContainsFunc(spec.Flags, func(fl argv.Flag) bool {
		return slices.ContainsFunc(strings.Fields(fl.Names), func(n string) bool { return n[0] != '-' && n[0] != '+' })
	})
	return slices.ContainsFunc(inv.Operands, func(i int) bool { return mayBeFlag(args[i], dashless) })
}

// actsOnFlags: some flag of the program reads, writes or runs something,
// or changes what the call does.
func actsOnFlags(spec *argv.Command) bool {
	return slices.ContainsFunc(spec.Flags, func(fl argv.Flag) bool { return fl.Role != argv.Opaque || fl.Effect != argv.NoEffect })
}

// mayBeFlag: word w is only known at run time and may hold a flag: it
// begins with an expansion (or, for a program with BSD letters, has one).
func mayBeFlag(w word, dashless bool) bool {
	return w.dyn && (dashless || w.val == "" || w.val[0] == '$' || w.val[0] == '`')
}

// builds reads the archivers.
// It reports whether one of its arms matched.
func (c *plainCall) builds() bool { return c.archiver() }

// printsVersion says lb's --version alone only prints its version
// (cmds.Tool's Version).
func printsVersion(lb string) bool {
	t := cmds.ToolOf(lb)
	return t != nil && t.Version
}

// prints says what the command prints when it is known-safe: its version,
// or names of project files (and whether they may be secrets' names)
// for what reads its output.
func (c *plainCall) prints() {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	s := &c.s
	if f.safe == nil && f.ask == nil && f.human == nil && f.floor == nil && printsVersion(lb) && len(args) == 1 &&
		(args[0].val == "--version" || args[0].val == "-V" || args[0].val == "version" || args[0].val == "-version") {
		c.safe(lb + " prints its version")
	}
	switch {
	case f.safe != nil && c.listing.names:
		// file names found under the project (grep -l, -L: those without a
		// match; -c: NAME:COUNT, cut -d: -f1 keeps the name; rg --files, fd),
		// as the hook read them (nameListing)
		s.projList, s.outList = a.readsInProject(idx), a.readsOutsideProject(idx)
		s.secretList, s.broadList = c.listing.secret, c.listing.broad
	case f.safe != nil && c.uses(argv.ListsHidden):
		// ls -A | xargs cat: the names include .env, like find's
		s.projList = a.readsInProject(idx)
		s.secretList, s.broadList = true, true
	case c.filter() == argv.Edits && f.safe != nil && a.stdin != nil && a.stdin.secretList:
		// grep -rc x . | cut -d: -f1 | xargs cat: cut keeps the names
		s.secretList = true
	case f.safe != nil && (c.spec != nil && c.spec.Output == argv.Paths || c.uses(argv.PrintsPath)) &&
		len(operands(args, nil)) == 1 && !args[operands(args, nil)[0]].dyn && !hasGlob(args[operands(args, nil)[0]].val):
		// f=$(realpath ~/.bashrc); echo … >> "$f": the output is the path
		if r := a.pathWord(args[operands(args, nil)[0]], sc, false); r.known {
			s.out = &stdinSrc{text: r.abs + "\n", known: true}
		}
	case (c.filter() == argv.Lines || c.filter() == argv.Ends || c.filter() == argv.Matches) && f.safe != nil && len(operands(args, nil)) <= 1 && a.stdin != nil && a.stdin.projList:
		// head, sort, grep PATTERN … keep a subset of the lines they read
		matches := c.filter() == argv.Matches
		s.projList = !matches || len(operands(args, nil)) == 1 && !hasShort(args, "o")
		if c.filter() == argv.Lines && len(operands(args, nil)) > 0 {
			s.projList = false
		}
		s.cleanList = s.projList && a.stdin.cleanList
		// find . | grep env | xargs cat: the kept names may still be
		// secrets (a grep may aim at them: no longer broad)
		s.secretList = s.projList && a.stdin.secretList && (!matches || filterMayKeepSecret(lb, args))
		s.broadList = s.secretList && a.stdin.broadList && !matches
	case (c.filter() == argv.Lines || c.filter() == argv.Ends || c.filter() == argv.Matches) && f.safe != nil && a.stdin != nil && a.stdin.outList:
		// find ~ -name x | grep y | xargs rm: a subset of names outside
		s.outList = len(operands(args, nil)) == 1 && c.filter() == argv.Matches && !hasShort(args, "o") ||
			len(operands(args, nil)) == 0 && c.filter() != argv.Matches
	}
}
