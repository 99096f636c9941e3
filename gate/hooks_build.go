package gate

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
)

// The hooks of the build tools (cmds/build.go): go's flags, make's
// options, variables and makefile text, the flags with which a build tool
// loads code.

// goFlag applies one of go's flags (cmds/build.go goFlags) and says
// whether it polices the call: a go call with one is not known-safe.
func (c *plainCall) goFlag(u argv.Use) bool {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	v, _ := valueWord(args, u)
	n := u.Name[1:]
	switch {
	case u.Flag.Role == argv.Run:
		// the value is a program (with arguments) go runs: analysed, and
		// the call asks whatever rule covers go test
		f.ask = reason("ask.flag", "go -"+n+" runs another program")
		if v.val != "" {
			a.reparse(v.val, sc, idx)
		}
	case u.Flag.Role == argv.Write:
		// -o, and the test outputs: files written where the flag says
		if v.val != "" {
			a.writeWord(v, sc, idx)
		}
		return n != "o"
	case u.Flag.Role == argv.Source:
		// replaces source files with ones from anywhere
		f.ask = reason("ask.flag", "go -overlay swaps in source files the rule never saw")
	case u.Flag.Role == argv.Read:
		if r := a.resolveMaybe(v, v.val, sc, false); v.dyn || !a.inProject(r) {
			f.ask = reason("ask.flag", "go -modfile builds with a go.mod outside the project")
		}
	case n == "C":
		a.outsideCwd(f, "go -C", a.resolveMaybe(v, v.val, sc, false).abs)
	case n == "ldflags":
		// -extld / -linkmode=external run another linker program
		if v.dyn || strings.Contains(v.val, "extld") || strings.Contains(v.val, "linkmode") {
			f.ask = reason("ask.flag", "go -ldflags runs an external linker")
			return true
		}
		return false
	case n == "u" && args[0].val == "list":
		return false // go list -u: the available upgrades, a query like -versions
	case (n == "w" || n == "u") && args[0].val == "env":
		// go env -w GOFLAGS=-toolexec=… runs in every later build
		f.human = reason("human.persistence-write", "go env -w changes the Go configuration for every later build")
	}
	return true
}

// goCmd polices go's flags (programs it runs, files it writes, a module
// or overlay from elsewhere) and finds its queries known-safe.
func (c *plainCall) goCmd() {
	f, args := c.f, c.args
	if len(args) == 0 {
		return
	}
	policed := false
	for _, u := range cmds.ToolOf(c.lb).Flags.Uses(len(args), wordAt(args)) {
		if c.goFlag(u) {
			policed = true
		}
	}
	if policed {
		return
	}
	switch args[0].val {
	case "version", "env", "list", "doc", "help", "vet":
		// go vet type-checks and reports, like go list -export it
		// compiles into the build cache only; -vettool is policed above
		f.safe = reason("gate.safe", "go "+args[0].val+" only reads")
	case "mod":
		// go mod graph, why and verify only read: the go mod queries of
		// the table (cmds/build.go goSubs); its other forms write go.mod
		if len(args) > 1 && cmds.Lookup(c.lb).Sub("mod").Sub(args[1].val) != nil {
			f.safe = reason("gate.safe", "go mod "+args[1].val+" only reads")
		}
	}
}

// makeCmd polices make: injected recipes, another shell, a makefile from
// stdin, or a makefile or directory outside the project are more than
// "make TARGET"; make -p prints the environment.
func (c *plainCall) makeCmd() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	// check is a makefile, directory or include directory make reads
	check := func(what string, w word, ok bool) {
		if what == "makefile" && w.val == "-" && !w.dyn {
			w.val = "/dev/stdin"
		}
		if what == "makefile" && ok {
			if in := a.scriptFrom(w); in != nil {
				// make -f - <<< 'all: ; CMD', make -f <(echo …): the text is the makefile
				f.ask = reason("ask.flag", "make reads its makefile from stdin or a substitution")
				a.makeShell(in.text, sc, idx)
				return
			}
		}
		switch {
		case !ok || w.dyn || w.val == "":
			f.ask = reason("ask.flag", "make reads a "+what+" only known at run time")
		default:
			if r := a.resolvePath(w.val, sc.cwd, false); !a.inProject(r) {
				f.ask = reason("ask.flag", "make reads a "+what+" from outside the project")
			}
		}
	}
	spec := cmds.ToolOf(c.lb).Cmd
	inv := parseArgs(spec, args)
	// its options and its operands (targets, NAME=VALUE), in their order:
	// a later one's reason is the one the call gives
	for u, o := 0, 0; u < len(inv.Uses) || o < len(inv.Operands); {
		if o == len(inv.Operands) || u < len(inv.Uses) && inv.Uses[u].At < inv.Operands[o] {
			c.makeOption(inv.Uses[u], check)
			u++
			continue
		}
		c.makeOperand(args[inv.Operands[o]])
		o++
	}
}

// makeOption applies one of make's options: the makefile (Role Source)
// or directory (Role Read) it reads, checked by check, --eval's recipe
// (Role Run), -p's dump of every variable.
func (c *plainCall) makeOption(u argv.Use, check func(what string, w word, ok bool)) {
	v, has := valueWord(c.args, u)
	switch {
	case u.Flag.Role == argv.Source:
		check("makefile", v, has)
	case u.Flag.Role == argv.Read:
		check("directory", v, has)
	case u.Flag.Role == argv.Run:
		c.f.ask = reason("ask.flag", "make --eval injects a recipe")
		c.a.makeShell(v.val, c.sc, c.idx)
	case u.Name == "-p" || u.Name == "--print-data-base":
		c.f.human = reason("human.env-dump", "make -p prints every variable, the environment included")
	}
}

// makeOperand reads one of make's operands: a target, or NAME=VALUE, a
// variable that may run a program or shell code.
func (c *plainCall) makeOperand(w word) {
	a, f, idx, sc := c.a, c.f, c.idx, c.sc
	n, val, eq := strings.Cut(w.val, "=")
	switch {
	case !eq:
	case n == "SHELL" || n == ".SHELLFLAGS" || n == "MAKEFLAGS" || n == "MAKE" || n == "MAKEFILES" || strings.HasSuffix(n, "SHELL"):
		f.ask = reason("ask.flag", "make with "+n+" set runs another program")
	case strings.HasSuffix(n, "!") || strings.Contains(val, "$(shell") || strings.Contains(val, "${shell"):
		// X!=CMD and $(shell CMD) run CMD when make reads its arguments
		f.human = reason("human.eval-opaque", "make runs a shell command given in its arguments")
		if strings.HasSuffix(n, "!") {
			val = "$(shell " + val + ")"
		}
		a.makeShell(val, sc, idx)
	case w.dyn || strings.ContainsAny(val, ";|&$`()<>\n"):
		// a variable a recipe expands: shell syntax in it runs
		f.ask = reason("ask.flag", "make with "+n+" set to shell syntax, which a recipe may run")
	case strings.Contains(val, "/") && !a.inProject(a.resolvePath(strings.Fields(val + " x")[0], sc.cwd, false)):
		// CC=/tmp/evil: a recipe runs a program from outside the project
		f.ask = reason("ask.flag", "make with "+n+" naming a program outside the project")
	}
}

// makeShell analyses the $(shell CMD) calls and recipe lines of make
// text: make runs them through the shell as it reads them.
func (a *analyzer) makeShell(text string, sc *scope, idx int) {
	for k := 0; k < len(text); k++ {
		rest := text[k:]
		if !strings.HasPrefix(rest, "$(shell") && !strings.HasPrefix(rest, "${shell") {
			continue
		}
		op, cl := rest[1], byte(')')
		if op == '{' {
			cl = '}'
		}
		depth, j := 0, 1
		for ; j < len(rest); j++ {
			if rest[j] == op {
				depth++
			} else if rest[j] == cl {
				if depth--; depth == 0 {
					break
				}
			}
		}
		a.reparse(rest[len("$(shell"):min(j, len(rest))], sc, idx)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "\t") {
			a.reparse(strings.TrimLeft(line, "\t@-+"), sc, idx)
			continue
		}
		// TARGET: PREREQS ; RECIPE (a rule, not an x := a; b assignment)
		if c := strings.IndexByte(line, ':'); c > 0 && !strings.HasPrefix(line[c:], ":=") && !strings.HasPrefix(line[c:], "::=") &&
			!strings.ContainsAny(line[:c], "=") {
			if _, r, ok := strings.Cut(line[c:], ";"); ok {
				a.reparse(strings.TrimLeft(r, " \t@-+"), sc, idx)
			}
		}
	}
}

// loaders applies a build tool's Loads (cmds.Tool) to one command line: a
// flag that loads code asks, one that reads a build file or directory
// asks when it is outside the project. A value is the next word, after
// "=", or attached to a short spelling (-Ix).
func (c *plainCall) loaders(t *cmds.Tool) {
	a, f, lb, args, sc := c.a, c.f, c.lb, c.args, c.sc
	value := func(i int, flag string) (word, bool) {
		v := args[i].val
		switch {
		case v == flag && i+1 < len(args):
			return args[i+1], true
		case strings.HasPrefix(v, flag+"="):
			return word{val: strings.TrimPrefix(v, flag+"="), dyn: args[i].dyn}, true
		case !strings.HasPrefix(flag, "--") && strings.HasPrefix(v, flag) && len(v) > len(flag) && !strings.HasPrefix(v, "--"):
			return word{val: v[len(flag):], dyn: args[i].dyn}, true
		}
		return word{}, false
	}
	for i := range args {
		for _, role := range []argv.Role{argv.Run, argv.Read} {
			for _, fl := range t.Loads {
				if fl.Role != role {
					continue
				}
				for _, name := range strings.Fields(fl.Names) {
					v, ok := value(i, name)
					switch {
					case !ok:
					case role == argv.Run && !(t.PluginOff != "" && strings.HasPrefix(v.val, t.PluginOff)):
						// pytest -p no:NAME turns a plugin off
						f.ask = reason("ask.flag", lb+" "+name+" loads code from "+v.val)
					case role == argv.Read:
						if r := a.resolveMaybe(v, v.val, sc, false); v.dyn || !a.inProject(r) {
							f.ask = reason("ask.flag", lb+" "+name+" reads a build file outside the project")
						}
					}
				}
			}
		}
	}
}
