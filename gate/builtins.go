package gate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// The shell builtins that change the shell's own state (its directory,
// aliases, options, traps, history, variables) are code, not table
// entries: what they do is to the analyzer's model of the shell, not to
// files. They are a closed set, one func each, chosen by builtin's one
// switch. eval, source, exec and command run their words and are read
// where commands are dispatched.

// builtin decides a builtin that changes the shell's state. It reports
// whether the call was one that it decided; a builtin whose call it
// leaves (compgen without -C or -v, jobs without -x) is decided by the
// table like any program.
func (c *plainCall) builtin() bool {
	switch c.lb {
	case "cd", "chdir":
		c.cd(true)
	case "pushd":
		c.cd(false) // it prints the stack
	case "popd":
		c.popd()
	case "alias":
		c.alias()
	case "unalias":
		c.safe("removes aliases")
	case "set":
		c.set()
	case "hash":
		c.hash()
	case "mapfile", "readarray":
		return c.callback()
	case "compgen":
		return c.callback() || c.compgen()
	case "history":
		return c.history()
	case "trap":
		c.trap()
	case "shopt":
		c.shopt()
	case "ulimit", "umask":
		return c.limits()
	case "jobs":
		return c.jobs()
	default:
		return false
	}
	return true
}

// assigns records what a builtin assigns before the call is decided:
// printf -v NAME, read NAME, declare; a read's variable bound to a line
// of a listing; the subscripts unset and test -v evaluate.
func (c *plainCall) assigns() {
	a, lb, args, sc := c.a, c.lb, c.args, c.sc
	targets, printed := builtinTargets(c.spec, args)
	for _, n := range targets {
		a.setsVar(lb, n.val, n.dyn)
		a.subscript(n.val, sc)
		v := builtinValue(printed, args)
		a.setVals(n.val, v)
		if slices.ContainsFunc(args, func(w word) bool { return w.taint }) {
			a.setTaint(a.ref(n.val), true) // printf -v k %s "$(cat .env)"
		}
		if a.allexport && v != nil {
			for _, x := range v.vals {
				a.envCommand(a.ref(n.val), x, sc) // set -a; printf -v GIT_PAGER …
			}
		}
	}
	// … | while read f: f holds one name the listing printed, or one line
	// of a text the call spells (echo .env | while read f; do cat "$f")
	if c.state() == argv.ReadsLine && a.stdin != nil && len(args) > 0 && !args[len(args)-1].dyn &&
		!slices.ContainsFunc(args[:len(args)-1], func(w word) bool { return w.val != "-r" }) {
		name := a.ref(args[len(args)-1].val)
		switch lines := strings.Split(strings.TrimSuffix(a.stdin.text, "\n"), "\n"); {
		case a.stdin.projList:
			a.bindListVar(name, word{projPaths: true, cleanPaths: a.stdin.cleanList, secretPaths: a.stdin.secretList,
				broadPaths: a.stdin.broadList})
		case a.stdin.known && len(lines) <= maxAlts:
			a.setVals(name, &varVals{vals: lines})
		}
	}
	// unset 'a[$(cmd)]', test -v 'a[$(cmd)]' evaluate the subscript
	for i, w := range args {
		if c.state() == argv.UnsetsVars || c.state() == argv.TestsVars && i > 0 && args[i-1].val == "-v" {
			a.subscript(w.val, sc)
		}
	}
}

// state is what the builtin does to the shell's variables or directory
// (argv.State), NoState for a program the table does not have.
func (c *plainCall) state() argv.State {
	if c.spec == nil {
		return argv.NoState
	}
	return c.spec.State
}

// cd, pushd and chdir change the working directory the later commands
// are read in: to the one value their operand can take, else unknown.
// quiet: it prints nothing (cd and chdir; pushd prints the stack).
func (c *plainCall) cd(quiet bool) {
	a, args, sc := c.a, c.args, c.sc
	ops := operands(args, nil)
	switch {
	case slices.ContainsFunc(args, dirStackEntry):
		// cd +2, cd -1 (zsh), pushd +1 (bash, zsh): a directory of the
		// stack, which the gate does not keep
		sc.cwd = ""
	case len(ops) == 0 && c.state() == argv.HomeDir:
		sc.cwd = a.env.Home
	case len(ops) == 1 && args[ops[0]].dyn && args[ops[0]].exact && len(args[ops[0]].alts) == 1 &&
		args[ops[0]].alts[0] != "" && args[ops[0]].alts[0] != "-" && !strings.HasPrefix(args[ops[0]].alts[0], "-"):
		// f(){ cd "$1"; }; f /: the only value the word can take
		sc.cwd = a.resolvePath(args[ops[0]].alts[0], sc.cwd, false).abs
	case len(ops) == 0 || args[ops[0]].dyn || args[ops[0]].val == "-" || a.cdpath && cdpathApplies(args[ops[0]].val):
		sc.cwd = "" // CDPATH=.git cd hooks: any directory CDPATH names

	default:
		sc.cwd = a.resolvePath(args[ops[0]].val, sc.cwd, false).abs
	}
	if quiet && sc.cwd != "" {
		c.s.out = &printsNothing // cd prints only through CDPATH or cd -
	}
	c.safe("changes directory")
}

// dirStackEntry reports a word that names an entry of the directory
// stack: +N or -N.
func dirStackEntry(w word) bool {
	v := w.val
	if w.dyn || len(v) < 2 || v[0] != '+' && v[0] != '-' {
		return false
	}
	_, err := strconv.Atoi(v[1:])
	return err == nil
}

// cdpathApplies reports a cd target that bash looks up in CDPATH: one
// that starts with neither / nor . (nor ~, which is expanded first).
func cdpathApplies(dir string) bool {
	return dir != "" && !strings.HasPrefix(dir, "/") && !strings.HasPrefix(dir, ".")
}

// popd returns to a directory of the stack, which the gate does not keep.
func (c *plainCall) popd() {
	c.sc.cwd = ""
	c.safe("changes directory")
}

// alias NAME=VALUE: the value runs wherever NAME is called later.
func (c *plainCall) alias() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	for _, w := range args {
		n, v, ok := strings.Cut(w.val, "=")
		if !ok || w.dyn {
			if w.dyn {
				f.human = reason("human.eval-opaque", "an alias only known at run time")
			}
			continue
		}
		if a.aliases == nil {
			a.aliases = map[string]string{}
		}
		a.aliases[n] = v
		c.s.or(a.reparse(v, sc, idx))
	}
	f.wrapper = true
	if f.human == nil {
		f.safe = reason("gate.wrapper", "defines aliases; their values are analysed")
	}
}

// set prints every variable, sets options or the positional words. Its
// words are read by set's declaration, with +X read as -X (the same
// option, turned off); the options end at the first operand, as bash's
// set ends them.
func (c *plainCall) set() {
	a, f, args := c.a, c.f, c.args
	if len(args) == 0 {
		f.human = reason("human.env-dump", "set without arguments prints every variable")
		c.s.taint = true
		return
	}
	inv := c.spec.ParseAt(len(args), func(i int) (string, bool) {
		if v := args[i].val; len(v) > 1 && v[0] == '+' {
			return "-" + v[1:], args[i].dyn
		}
		return args[i].val, args[i].dyn
	})
	switch {
	case setOn(args, inv, "-k", "keyword"):
		// set -k: NAME=VALUE anywhere in a command line sets its environment
		f.ask = reason("ask.flag", "set -k turns arguments into environment variables")
	case setOptionsDynamic(args, inv):
		// x=-k; set $x: the word is read as options when it starts with - or +
		f.ask = reason("ask.flag", "set of a word only known at run time may turn on -k")
	default:
		if inv.Ended > 0 {
			// set -- -rf ~: "$@" is those words
			if a.arrays == nil {
				a.arrays = map[string][]word{}
			}
			a.arrays["@"] = slices.Clone(args[inv.Ended:])
			for n, w := range args[inv.Ended:min(len(args), inv.Ended+9)] {
				a.setVals(strconv.Itoa(n+1), w.values()) // set -- ~; rm -rf "$1"
			}
		}
		// set -a exports what builtins assign later (printf -v GIT_PAGER)
		a.allexport = a.allexport || setOn(args, inv, "-a", "allexport")
		c.safe("sets shell options")
	}
}

// setOn reports set's option turned on by its letter (-k, in a cluster:
// -euk) or its -o name (-o keyword, -ko keyword, -ok keyword).
func setOn(args []word, inv argv.Invocation, letter, name string) bool {
	return slices.ContainsFunc(inv.Uses, func(u argv.Use) bool {
		on := args[u.At].val[0] == '-' // +k, +o keyword turn it off
		return on && (u.Name == letter || u.Name == "-o" && u.Value == name)
	})
}

// setOptionsDynamic reports a word only known at run time where set may
// read options: before its first operand or as it (set $OPTS, set -o "$x"),
// not after --.
func setOptionsDynamic(args []word, inv argv.Invocation) bool {
	end := len(args)
	switch {
	case inv.Ended > 0:
		end = inv.Ended - 1
	case len(inv.Operands) > 0:
		end = inv.Operands[0] + 1
	}
	return slices.ContainsFunc(args[:end], func(w word) bool { return w.dyn })
}

// hash -p PATH NAME: NAME now runs PATH.
func (c *plainCall) hash() {
	a, f, args := c.a, c.f, c.args
	for i, w := range args {
		if strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "p") && i+2 < len(args) {
			if a.aliases == nil {
				a.aliases = map[string]string{}
			}
			a.aliases[args[i+2].val] = shellQuote(args[i+1].val)
			f.ask = reason("ask.flag", "hash -p makes a name run another program")
		}
	}
	c.hashAssigns()
	if f.ask == nil {
		c.safe("lists or clears the command hash table")
	}
}

// hashAssigns reads zsh's hash NAME=PATH, which makes NAME run PATH as
// bash's -p does (zsh's -d NAME=DIR names a directory instead); an operand
// only known at run time may be one.
func (c *plainCall) hashAssigns() {
	a, args := c.a, c.args
	inv := c.spec.ParseAt(len(args), func(i int) (string, bool) { return args[i].val, args[i].dyn })
	if inv.Has("-d") {
		return
	}
	for _, i := range inv.Operands {
		name, path, ok := strings.Cut(args[i].val, "=")
		switch {
		case args[i].dyn:
			c.f.ask = reason("ask.flag", "hash of a word only known at run time may make a name run another program")
		case ok:
			if a.aliases == nil {
				a.aliases = map[string]string{}
			}
			a.aliases[name] = shellQuote(path)
			c.f.ask = reason("ask.flag", "hash NAME=PATH (zsh) makes a name run another program")
		}
	}
}

// callback reads mapfile -C CODE and compgen -C CODE: the shell runs
// CODE. It reports whether the call has -C.
func (c *plainCall) callback() bool {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	code := optionValues(args, 'C', "")
	if len(code) == 0 {
		return false
	}
	f.wrapper = true
	for _, w := range code {
		if w.dyn {
			f.human = reason("human.eval-opaque", lb+" -C of a string only known at run time")
		}
		c.s.or(a.reparse(w.val, sc, idx))
	}
	return true
}

// compgen -v and -e list the environment's names. It reports whether
// the call has one of them.
func (c *plainCall) compgen() bool {
	if !hasFlag(c.args, "-v", "-e") {
		return false
	}
	c.f.human = reason("human.env-dump", "lists the environment")
	c.s.taint = true
	return true
}

// history -r FILE loads FILE (history prints it later), -w/-a FILE
// writes it; a history that loaded a secret file prints it. It reports
// whether the call was one of those.
func (c *plainCall) history() bool {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	switch {
	case len(operands(args, nil)) > 0 && hasShort(args, "rnwa"):
		for _, i := range operands(args, nil) {
			if hasShort(args, "wa") {
				a.writeWord(args[i], sc, idx)
				continue
			}
			mid := len(a.facts)
			a.readWord(args[i], sc, idx, false)
			for _, g := range a.facts[mid:] {
				if g.human != nil && g.human.Code == "human.sensitive-read" {
					a.setTaint("(history)", true)
				}
			}
		}
	case a.taint["(history)"] && !hasShort(args, "c"):
		f.human = reason("human.sensitive-read", "prints a history that holds a secret file")
		c.s.taint = true
	default:
		return false
	}
	return true
}

// trap's first argument is code the shell runs later.
func (c *plainCall) trap() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	ops := operands(args, nil)
	if len(ops) == 0 || hasFlag(args, "-p", "-l") {
		c.safe("lists traps")
		return
	}
	w := args[ops[0]]
	if w.dyn {
		f.human = reason("human.eval-opaque", "trap of a string only known at run time")
	} else {
		f.safe = reason("gate.wrapper", "trap of a literal string; the string is analysed")
	}
	f.wrapper = true
	if slices.ContainsFunc(args[ops[0]+1:], func(w word) bool { return strings.EqualFold(strings.TrimPrefix(w.val, "SIG"), "DEBUG") }) {
		// runs before every later command, in this shell: its cd moves them
		c.s.or(a.reparseIn(w.val, sc, idx))
	} else {
		c.s.or(branch(sc, func(in *scope) summary { return a.reparseIn(w.val, in, idx) }))
	}
}

// shopt: glob, history and message options are harmless; others
// (lastpipe, cdable_vars, extdebug, sourcepath…) change where or what
// commands run.
func (c *plainCall) shopt() {
	args := c.args
	ok := true
	for _, w := range args {
		ok = ok && !w.dyn && (strings.HasPrefix(w.val, "-") || harmlessShopt[w.val])
	}
	if ok || hasShort(args, "pq") && !hasShort(args, "su") {
		c.safe("sets glob or history options")
	}
}

// harmlessShopt are shopt options that only change glob matching, history
// or messages.
var harmlessShopt = map[string]bool{"nullglob": true, "globstar": true, "dotglob": true, "extglob": true, "failglob": true,
	"nocaseglob": true, "nocasematch": true, "globasciiranges": true, "expand_aliases": true, "histappend": true,
	"cmdhist": true, "lithist": true, "checkwinsize": true, "inherit_errexit": true, "direxpand": true, "dirspell": true,
	"cdspell": true, "progcomp": true, "hostcomplete": true, "interactive_comments": true, "shift_verbose": true}

// ulimit and umask without a value only print it. It reports whether the
// call has no value.
func (c *plainCall) limits() bool {
	if len(operands(c.args, nil)) > 0 || hasFlag(c.args, "-") {
		return false
	}
	c.safe(c.lb + " without a value only prints it")
	return true
}

// jobs -x CMD ARGS runs CMD. It reports whether the call has -x.
func (c *plainCall) jobs() bool {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	if !hasShort(args, "x") {
		return false
	}
	for i, w := range args {
		if strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "x") {
			f.wrapper = true
			f.safe = reason("gate.wrapper", "jobs -x runs the inner command, which is analysed")
			if i+1 < len(args) {
				c.s, c.done = a.inner(args[i+1:], sc, idx), true
			}
			break
		}
	}
	return true
}
