package gate

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
)

// Code fetched from outside the project (SPEC §5.4) is human-only: a
// package runner's package that is neither installed nor in a lockfile of
// the project (npx cowsay, pnpm dlx x, bunx x, uvx x, pipx run x), a URL
// or git spec handed to a runner or to pip install, deno run of a remote
// module, go run of a module at a version. What the project pins was
// chosen by a person; a name the agent types may be a typosquat.

// remoteCode is the reason code of the class.
const remoteCode = "human.remote-code"

// findPackageRunner returns a package runner's entry (cmds.Tool's Runs:
// the subcommand words that make it fetch) and the index of its first
// argument.
func findPackageRunner(lb string, args []word) (*cmds.Tool, int, bool) {
	t := cmds.ToolOf(lb)
	if t == nil {
		return nil, 0, false
	}
	for _, form := range t.Runs {
		if n, ok := formAt(args, form); ok {
			return t, n, true
		}
	}
	return nil, 0, false
}

// formAt says args start with form's words ("tool run"; "" is no word)
// and how many there are.
func formAt(args []word, form string) (int, bool) {
	n := 0
	for rest := form; rest != ""; n++ {
		var w string
		w, rest, _ = strings.Cut(rest, " ")
		if n >= len(args) || args[n].val != w {
			return 0, false
		}
	}
	return n, true
}

// remoteRunner reports a package runner that may fetch code: the packages
// it names (option values, else its first operand) that the project does
// not have.
func remoteRunner(lb string, args []word, project string) (string, bool) {
	t, start, ok := findPackageRunner(lb, args)
	if !ok {
		return "", false
	}
	args = args[start:]
	inv := parseArgs(t.Registry.RunnerOptions(), args)
	var pkgs []word
	for _, u := range inv.Uses {
		switch u.Flag.Sets {
		case cmds.RunsInstalled:
			return "", false
		case cmds.RunsPackage:
			w, _ := valueWord(args, u) // none: npx -p at the end names no package the project has
			pkgs = append(pkgs, w)
		}
	}
	if len(pkgs) == 0 && len(inv.Operands) > 0 {
		pkgs = append(pkgs, args[inv.Operands[0]])
	}
	for _, p := range pkgs {
		if p.dyn || !projectHas(project, p.val, t.Registry == cmds.PyPI) {
			return p.val, true
		}
	}
	return "", false
}

// projectHas reports a package spec the project provides: a path, an
// installed binary (node_modules/.bin), or a name its manifest or a
// lockfile lists. A URL or a git spec never is.
func projectHas(project, spec string, python bool) bool {
	switch {
	case strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "~") || strings.HasPrefix(spec, "file:"):
		return true
	case remoteSpec(spec) || project == "":
		return false
	}
	name := packageName(spec, python)
	if name == "" {
		return false
	}
	if !python {
		if fi, err := os.Stat(filepath.Join(project, "node_modules", ".bin", name)); err == nil && !fi.IsDir() {
			return true
		}
	}
	files := []string{"package.json", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock"}
	if python {
		files = []string{"uv.lock", "poetry.lock", "pyproject.toml", "Pipfile.lock", "requirements.txt", "requirements-dev.txt", "pdm.lock"}
	}
	for _, f := range files {
		if text, ok := readSmall(filepath.Join(project, f)); ok && mentionsPackage(text, name, python) {
			return true
		}
	}
	return false
}

// remoteSpec reports a package spec that names code by URL or repository:
// https://…, git+ssh://…, github:o/r, o/r (npm's GitHub shorthand).
func remoteSpec(s string) bool {
	ls := strings.ToLower(s)
	for _, p := range []string{"git+", "git:", "github:", "gitlab:", "bitbucket:", "gist:", "http:", "https:", "ssh:", "git@", "hg+", "svn+", "bzr+"} {
		if strings.HasPrefix(ls, p) {
			return true
		}
	}
	if strings.Contains(s, "://") || strings.Contains(s, " @ ") {
		return true
	}
	// o/r is a GitHub repository to npm; @scope/name is a package
	return !strings.HasPrefix(s, "@") && strings.Count(s, "/") == 1 && !strings.Contains(s, ":")
}

// packageName is a spec's package name without its version: eslint@8 →
// eslint, @types/node@20 → @types/node, ruff==0.1 → ruff (lower case,
// _ as - for Python).
func packageName(spec string, python bool) string {
	if python {
		n := spec
		if i := strings.IndexAny(n, "=<>!~[;@ "); i >= 0 {
			n = n[:i]
		}
		return strings.ReplaceAll(strings.ToLower(n), "_", "-")
	}
	at := strings.LastIndexByte(spec, '@')
	if at > 0 {
		return spec[:at]
	}
	return spec
}

// mentionsPackage reports a manifest or lockfile text that lists name.
func mentionsPackage(text, name string, python bool) bool {
	if python {
		lt := strings.ReplaceAll(strings.ToLower(text), "_", "-")
		for _, pat := range []string{`name = "` + name + `"`, `"` + name, "\n" + name, `'` + name} {
			if strings.Contains(lt, pat) || strings.HasPrefix(lt, name) {
				return true
			}
		}
		return false
	}
	for _, pat := range []string{`"` + name + `"`, `"` + name + `@`, `/` + name + `@`, "\n" + name + "@", "\n  " + name + ":", `'` + name + `'`, `node_modules/` + name + `"`} {
		if strings.Contains(text, pat) {
			return true
		}
	}
	return false
}

// maxLockfile bounds the size of a lockfile the gate reads.
const maxLockfile = 16 << 20

// readSmall reads a regular file of at most maxLockfile bytes.
func readSmall(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxLockfile {
		return "", false
	}
	b, err := os.ReadFile(path)
	return string(b), err == nil
}

// pipRemote reports a pip install operand that is a URL or a VCS spec
// (git+https://…, pkg @ https://…), the code of which comes from there.
func pipRemote(v string) bool {
	lv := strings.ToLower(v)
	return strings.Contains(v, "://") || strings.HasPrefix(lv, "git+") || strings.HasPrefix(lv, "hg+") ||
		strings.HasPrefix(lv, "svn+") || strings.HasPrefix(lv, "bzr+") || strings.Contains(v, "@ ") || strings.HasPrefix(lv, "git@")
}

// denoRemote reports a module deno would fetch: a URL, npm: or jsr:.
func denoRemote(v string) bool {
	lv := strings.ToLower(v)
	return strings.HasPrefix(lv, "http://") || strings.HasPrefix(lv, "https://") || strings.HasPrefix(lv, "npm:") || strings.HasPrefix(lv, "jsr:")
}

// remoteModule reports a program run on a module it fetches: the
// reader its entry names (cmds.Tool's Module).
func remoteModule(lb string, args []word) (string, bool) {
	switch t := cmds.ToolOf(lb); {
	case t == nil:
	case t.Module == "deno":
		return denoRunRemote(args)
	case t.Module == "go":
		return goRunRemote(args)
	}
	return "", false
}

// goBuildValues are go build's flags that take the next word as value.
var goBuildValues = map[string]bool{"C": true, "p": true, "tags": true, "ldflags": true, "gcflags": true, "asmflags": true,
	"gccgoflags": true, "mod": true, "modfile": true, "overlay": true, "pgo": true, "exec": true, "toolexec": true,
	"buildmode": true, "compiler": true, "installsuffix": true, "pkgdir": true, "coverpkg": true, "covermode": true, "o": true}

// goRunRemote reports go run of a package at a version (pkg@v1,
// pkg@latest), which go fetches whatever the project's go.mod says.
func goRunRemote(args []word) (string, bool) {
	if len(args) == 0 || args[0].val != "run" {
		return "", false
	}
	for i := 1; i < len(args); i++ {
		v := args[i].val
		if n, _, eq := strings.Cut(strings.TrimLeft(v, "-"), "="); strings.HasPrefix(v, "-") {
			if !eq && goBuildValues[n] {
				i++
			}
			continue
		}
		return v, strings.Contains(v, "@") && !strings.HasPrefix(v, ".") && !strings.HasPrefix(v, "/")
	}
	return "", false
}

// denoRunRemote reports deno run (or deno with a module first) of a remote
// module.
func denoRunRemote(args []word) (string, bool) {
	i := 0
	if len(args) > 0 && args[0].val == "run" {
		i = 1
	}
	for ; i < len(args); i++ {
		if v := args[i].val; !strings.HasPrefix(v, "-") {
			return v, denoRemote(v)
		}
	}
	return "", false
}
