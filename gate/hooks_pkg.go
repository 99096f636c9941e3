package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// The hooks of the package managers (cmds/pkg.go): what their entries
// cannot say of their flags and subcommands.

// pkgManager polices npm, pnpm and yarn: flags that change what they run
// or where they install, package sources, package.json's scripts and the
// configuration's tokens; their queries only read.
func (c *plainCall) pkgManager() {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	for i, w := range args {
		n, val, eq := strings.Cut(w.val, "=")
		switch n {
		case "--script-shell", "--node-options", "--userconfig", "--globalconfig", "--shell-emulator":
			f.ask = reason("ask.flag", n+" changes what npm runs")
		case "--registry":
			f.ask = reason("ask.flag", "--registry installs packages from another source")
		case "-g", "--global", "--location":
			if n != "--location" || val == "global" {
				f.human = reason("human.outside-write", "a global install writes outside the project and onto the PATH")
			}
		case "--prefix", "-C", "--dir":
			if !eq && i+1 < len(args) {
				val = args[i+1].val
			}
			a.outsideCwd(f, n, a.resolvePath(val, sc.cwd, false).abs)
		}
	}
	ops := operands(args, nil)
	t := cmds.ToolOf(lb)
	if len(args) == 1 && (args[0].val == "-v" || slices.Contains(t.ListsScripts, args[0].val)) {
		// npm -v is --version; run without a script lists the scripts
		f.safe = reason("gate.safe", "package manager query")
	}
	if len(ops) == 0 {
		return
	}
	sub := args[ops[0]].val
	if sub == "install" || sub == "i" || sub == "add" {
		for _, i := range ops[1:] {
			// a tarball URL or git spec: code from outside the registry
			if v := args[i].val; strings.Contains(v, "://") || strings.HasPrefix(v, "git+") || strings.HasPrefix(v, "github:") {
				f.ask = reason("ask.flag", "installs a package from a URL")
			}
		}
	}
	// npm pkg get prints package.json, set and delete change it (the rest
	// asks as a write); yarn and pnpm run a script named pkg
	pkg := cmds.Lookup(lb).Sub(sub).Sub("get") != nil
	switch {
	case sub == "set-script" || pkg && len(ops) > 2 && args[ops[1]].val != "get" &&
		slices.ContainsFunc(ops[2:], func(i int) bool { return args[i].dyn || strings.HasPrefix(args[i].val, "scripts") }):
		f.human = reason("human.persistence-write", "changes package.json scripts")
	case pkg && len(ops) > 1 && args[ops[1]].val == "get":
		f.safe = reason("gate.safe", "npm pkg get prints fields of package.json")
	case sub == "config" && len(ops) > 1 && args[ops[1]].val == "set":
		f.human = reason("human.persistence-write", "changes the package manager configuration")
	case sub == "config" && len(ops) > 2 && args[ops[1]].val == "get" && gitSecretKey().MatchString(strings.ReplaceAll(args[ops[2]].val, "_auth", "token")):
		a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: "npm config get"}, parent: idx,
			human: reason("human.sensitive-read", "prints a registry token")})
	case slices.Contains(t.Queries, sub) || sub == "--version" || sub == "-v":
		// its built-in queries only: yarn view and pnpm explain run the
		// package's script of that name
		f.safe = reason("gate.safe", "package manager query")
	}
}

// pipShortValues are pip's short options that take a value (those of
// pipValueFlags), read in a cluster (-rFILE).
const pipShortValues = "rctife"

// pipValueFlags are pip's options that take a value.
var pipValueFlags = map[string]bool{"-r": true, "--requirement": true, "-c": true, "--constraint": true, "-t": true, "--target": true,
	"--prefix": true, "--root": true, "--src": true, "-i": true, "--index-url": true, "--extra-index-url": true, "-f": true,
	"--find-links": true, "--trusted-host": true, "--python": true, "--cache-dir": true, "--log": true, "-e": true, "--editable": true,
	"--platform": true, "--python-version": true, "--implementation": true, "--abi": true, "--progress-bar": true, "--proxy": true}

// pipCmd polices pip: queries only read; an install that writes outside
// the project (--user, --target, --prefix, --root) or takes packages from
// another index or a URL is more than the "pip install" a rule allowed.
func (c *plainCall) pipCmd() {
	a, f, idx, args, sc := c.a, c.f, c.idx, c.args, c.sc
	ops := operands(args, pipValueFlags)
	if len(ops) == 0 {
		return
	}
	// another index, links page, trusted host or proxy: pip list -o sends
	// the installed packages there, pip install takes code from there
	// (optparse takes -iURL and unique prefixes: --index=URL)
	foreign := hasShortBefore(args, "if", pipShortValues) || hasLongAbbrev(args, "--index-url", "--extra-index-url", "--find-links", "--trusted-host", "--proxy")
	switch args[ops[0]].val {
	case "list", "show", "freeze", "check", "help", "inspect":
		// freeze -r FILE prints FILE's comment and option lines, and each
		// line it cannot read as a requirement in a warning: a read
		for _, w := range optionValues(args, 'r', "--requirement") {
			a.readWord(w, sc, idx, false)
		}
		if foreign {
			f.ask = reason("ask.flag", "pip queries another index")
		} else if len(flagValues(args, "--python", "--log", "--path")) == 0 {
			f.safe = reason("gate.safe", "pip "+args[ops[0]].val+" only prints package metadata")
		}
	case "install", "download", "wheel":
		if hasFlag(args, "--user") {
			f.human = reason("human.outside-write", "pip install --user writes ~/.local, outside the project")
		}
		for _, w := range flagValues(args, "-t", "--target", "--prefix", "--root", "--src", "-d", "--dest", "-w", "--wheel-dir") {
			a.writeWord(w, sc, idx)
		}
		if foreign {
			f.ask = reason("ask.flag", "pip installs from another index")
		}
		c.pipRemotes(args, ops)
	}
}

// pipRemotes makes an install of a URL or a VCS spec human-only: one of
// its operands after the subcommand, ops[0], or a value of -e/--editable
// (pip install -e git+https://…#egg=x clones and builds it).
func (c *plainCall) pipRemotes(args []word, ops []int) {
	specs := optionValues(args, 'e', "--editable")
	for _, i := range ops[1:] {
		specs = append(specs, args[i])
	}
	for _, w := range specs {
		if v := w.val; pipRemote(v) {
			c.f.human, c.f.ruleClears = reason(remoteCode, "pip installs "+v+", code from outside the project"), true
		}
	}
}

// uvPip reads uv pip install, uv's pip interface, as pip's install: a URL
// or VCS spec is code from outside the project. The rest of uv is read
// by its entry.
func (c *plainCall) uvPip() {
	ops := operands(c.args, nil)
	if len(ops) < 2 || c.args[ops[0]].val != "pip" || c.args[ops[1]].val != "install" {
		return
	}
	rest := c.args[ops[0]+1:]
	if pops := operands(rest, pipValueFlags); len(pops) > 0 {
		c.pipRemotes(rest, pops)
	}
}

// cargo polices cargo's flags: --config and -Z set configuration that can
// run programs; --target-dir and --manifest-path outside the project;
// cargo watch's -s/-x commands.
func (c *plainCall) cargo() {
	a, f, args, sc := c.a, c.f, c.args, c.sc
	watch := len(args) > 0 && args[0].val == "watch"
	for i, w := range args {
		n, val, eq := strings.Cut(w.val, "=")
		if !eq && i+1 < len(args) && watch && (n == "-s" || n == "--shell" || n == "-x" || n == "--exec") {
			val = args[i+1].val
		}
		switch {
		case watch && (n == "-s" || n == "--shell"):
			// cargo watch -s CMD runs CMD through the shell on each change
			f.ask = reason("ask.flag", "cargo watch runs a command")
			c.s.or(a.reparse(val, sc, c.idx))
		case watch && (n == "-x" || n == "--exec"):
			f.ask = reason("ask.flag", "cargo watch runs a cargo command")
			c.s.or(a.reparse("cargo "+val, sc, c.idx))
		case n == "--config" || n == "-Z":
			f.ask = reason("ask.flag", "cargo "+n+" sets configuration that can run programs")
		case n == "--target-dir":
			if !eq && i+1 < len(args) {
				val = args[i+1].val
			}
			if r := a.resolvePath(val, sc.cwd, true); !a.inProject(r) {
				f.human = reason("human.outside-write", "cargo writes its build outside the project")
			}
		case n == "--manifest-path":
			if !eq && i+1 < len(args) {
				val = args[i+1].val
			}
			if r := a.resolvePath(val, sc.cwd, false); !a.inProject(r) {
				f.ask = reason("ask.flag", "cargo builds a manifest outside the project")
			}
		}
	}
}

// tool reads a program the table declares as a cmds.Tool through the
// hook its entry names: the package managers (this file), the build
// tools (hooks_build.go), the container and cluster CLIs
// (hooks_container.go), the infrastructure and cloud CLIs
// (hooks_cloud.go).
// It reports whether a hook read the call.
func (c *plainCall) tool() bool {
	t := cmds.ToolOf(c.lb)
	if t == nil {
		return false
	}
	read := c.toolHook(t)
	if tearsDown(t.Teardowns, c.args) {
		// whatever its hook made of the rest of the call
		c.f.human = reason("human.teardown", "deletes infrastructure or the data it holds")
		return true
	}
	return read
}

// toolHook is the hook t's entry names reading the call; it reports
// whether one did.
func (c *plainCall) toolHook(t *cmds.Tool) bool {
	switch t.Hook {
	case "npm":
		c.pkgManager()
	case "pip":
		c.pipCmd()
	case "uv":
		c.uvPip()
		return false // the rest of uv is read by its entry
	case "cargo":
		c.cargo()
	case "go":
		c.goCmd()
	case "make":
		c.makeCmd()
	case "loaders":
		c.loaders(t)
	case "docker":
		c.dockerCLI()
	case "kube":
		c.kube()
	case "infra":
		c.infra()
	case "forge":
		c.forge()
	default:
		return false
	}
	return true
}
