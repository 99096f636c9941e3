package cmds

import (
	"slices"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// A Tool is a program with subcommands the gate reads as a family: a
// package manager (this file), a build tool (build.go), a container or
// cluster CLI (containers.go), a cloud or forge CLI (cloud.go). Its entry
// says how an "always" answer names it, which of its subcommands install
// packages, and which of the gate's hooks reads the rest of its words.
type Tool struct {
	// Name is the program's; one ending in "-*" is a family, every
	// program named so (docker-credential-*: docker-credential-pass)
	// whose own name has no entry.
	Name string
	// GrantFlags are, for subcommand sub, the flags after it with which an
	// "always" covers SUB FLAG *, and without which only the exact call
	// (git checkout -b *: cmds.GitSub's GrantFlags); nil for none, or a
	// func that gives nil: the Grant rule alone
	GrantFlags func(sub string) []string
	// Cmd declares its flags and the read-only subcommands the gate's
	// code finds known-safe (npm ls), nil when none is declared yet; a
	// subcommand not declared is decided by the hook alone.
	Cmd *argv.Command
	// Hook names the gate's reader of its words, "" for none: npm, pip,
	// cargo (hooks_pkg.go), go, make, loaders (hooks_build.go), docker,
	// kube (hooks_container.go), infra (hooks_cloud.go)
	Hook string
	// Grant is how an "always" answer to one of its calls is worded.
	Grant Grant
	// Nested are the subcommands whose next word is the action, so a
	// grant names that word too (npm config set, not npm config *);
	// AllNested: every subcommand is such a group (gh pr create).
	Nested    []string
	AllNested bool
	// Installs are the words (its first or second) with which it fetches
	// and installs packages: a grant covers only the exact call, since
	// TOOL install * would also cover a URL or another index.
	Installs []string
	// Loads are its flags that load code from elsewhere (gradle -I
	// init.gradle: Role Run, always asks) or read a build file or
	// directory (Role Read: asks outside the project), whatever rule
	// covers the call. A short spelling's value may be attached (-Ix).
	Loads []argv.Flag
	// Flags are the flags its hook reads wherever they are, in every
	// subcommand, by their Role (go build -o FILE: Write, -toolexec
	// PROG: Run, -overlay FILE: Source), nil for none.
	Flags *argv.Command
	// Uninstalls are the subcommands with which a cluster CLI removes a
	// release (helm uninstall, its alias delete): a teardown when they
	// name one (the kube hook).
	Uninstalls []string
	// PluginOff is the prefix of a value of a loading flag (Loads, Role
	// Run) that turns a plugin off rather than loading one (pytest -p
	// no:cacheprovider), "" for none.
	PluginOff string
	// Teardowns are the forms in which it deletes infrastructure, each
	// the words a call holds anywhere (gcloud projects delete: "delete
	// projects"): human-only (SPEC §5.4).
	Teardowns []string
	// Secrets are the forms in which it prints a credential or a
	// decrypted secret (human-only read), Configures those in which it
	// changes a configuration that later runs commands or loads code,
	// OntoPath those in which it installs a program onto the PATH outside
	// the project (human-only writes, SPEC §5.4), in the spec language of
	// gate/subcmds.go: "sub path -flag|--flag !word|word".
	Secrets    []string
	Configures []string
	OntoPath   []string
	// Uploads are the forms in which it sends the files it names
	// (operands, --*file* values) to a remote service (gcloud storage cp,
	// wormhole send): a secret among them leaves the machine.
	Uploads []string
	// Serves are the forms in which it serves the repository or the
	// machine to the network on every interface (git daemon): human-only.
	Serves []string
	// Unguarded are the forms in which it runs an agent with its
	// permission checks, sandbox or hooks turned off (claude
	// --dangerously-skip-permissions): what that agent does passes no
	// gate (human-only).
	Unguarded []string
	// Resolves are the forms in which it looks a name up in DNS (getent
	// hosts), Opens those in which it hands its operand to the desktop's
	// default application (xdg-open): the name or URL leaves the machine.
	Resolves []string
	Opens    []string
	// ChangesSystem are the forms in which it changes the system outside
	// any project (defaults write, launchctl load, diskutil erase*):
	// human-only.
	ChangesSystem []string
	// DryRuns are the flags with which an install onto the PATH only
	// lists or prints (cargo install --list, go install -n).
	DryRuns []string
	// Queries are the subcommands that only print, built into the tool in
	// every version it has: a package manager runs the package's script
	// of any other name (yarn view runs the script "view"); ListsScripts
	// are those that, alone, list the scripts (npm run).
	Queries      []string
	ListsScripts []string
	// Runs are the subcommand words with which it runs a package it
	// fetches from Registry when the project does not have it (npm exec,
	// uv tool run; "": every call, npx): remote code (SPEC §5.4).
	Runs     []string
	Registry Registry
	// Module names the gate's reader of a module it fetches and runs
	// (go run m@v1, deno run URL; remote.go), "" for none.
	Module string
	// Version: its --version, -V, version or -version alone only
	// prints its version.
	Version bool
	// FetchesURLs: it fetches a URL operand or option value (git clone,
	// pip install -i, npm i URL), so a token in it goes to that host.
	FetchesURLs bool
	// Examples state the gate's answer (argv.Example.Want) for a call.
	Examples []argv.Example
}

// Registry is where a package runner's packages come from.
type Registry uint8

const (
	NPM Registry = iota
	PyPI
)

// What a package runner's option does (argv.Flag.Sets), read by the
// gate's remote-code check (gate/remote.go).
const (
	// RunsPackage: its value is a package the runner fetches and runs
	// (npx -p PKG, uvx --from PKG)
	RunsPackage argv.Sets = iota + 1
	// RunsInstalled: the runner fetches nothing, it runs what is
	// installed (npx --no, --offline)
	RunsInstalled
)

// runnerOptions are the options of a registry's package runners (npx,
// pnpm dlx, bunx; uvx, pipx run) before the package: the first operand is
// the package unless an option names one, and the words after it are the
// package's own. Those that take no value are not all declared (Skip).
var runnerOptions = [...]*argv.Command{
	NPM: {Name: "npm exec", Unknown: argv.Skip, StopAtOperand: true, Flags: []argv.Flag{
		{Names: "-p --package", Arity: argv.Value, Sets: RunsPackage},
		{Names: "--no --no-install --offline", Arity: argv.None, Sets: RunsInstalled, Each: true},
		{Names: "-c|--call --cache --registry -w|--workspace --userconfig --shell", Arity: argv.Value, Each: true}}},
	PyPI: {Name: "uvx", Unknown: argv.Skip, StopAtOperand: true, Flags: []argv.Flag{
		{Names: "--from --with --spec", Arity: argv.Value, Sets: RunsPackage, Each: true},
		{Names: "--offline", Arity: argv.None, Sets: RunsInstalled},
		{Names: "-p|--python -i|--index-url --extra-index-url --with-requirements --pip-args", Arity: argv.Value, Each: true}}},
}

// RunnerOptions are the options of r's package runners before the package.
func (r Registry) RunnerOptions() *argv.Command { return runnerOptions[r] }

// Grant is how an "always" answer to a tool's call is worded.
type Grant uint8

const (
	Exact Grant = iota // the exact command
	// BySub: TOOL SUB * (go test *), the subcommand's words free; the
	// exact command for what runs or installs code
	BySub
	// ByScript: BySub, and TOOL run SCRIPT * for a package script
	ByScript
)

// Groups says the tool's subcommand sub is a group whose next word is the
// action.
func (t *Tool) Groups(sub string) bool {
	return t.AllNested || slices.Contains(t.Nested, sub)
}

// Modelled says the gate's families read the tool's calls even when a
// call says nothing they know (a tool whose grant is per subcommand, that
// installs packages, prints its version or fetches URLs).
func (t *Tool) Modelled() bool {
	return t.Grant != Exact || t.Installs != nil || t.Version || t.FetchesURLs
}

// installWords are the subcommands with which a package manager fetches
// and installs packages.
var installWords = []string{"install", "i", "add", "ci", "require", "update", "upgrade", "sync"}

// npmGroups are the npm, pnpm and yarn subcommands that group actions.
var npmGroups = []string{"pkg", "config", "cache", "token", "owner", "access", "team", "dist-tag"}

// pipGroups are pip's, uv's and poetry's.
var pipGroups = []string{"config", "tool", "cache", "self"}

// npmQueries are npm's read-only queries (and pnpm's, yarn's).
var npmQueries = []*argv.Command{
	sub("ls", flags("-a --all --json --long -l --parseable -p --global -g --prod --production --dev --link --unicode -s --silent --no-unicode --include-workspace-root --package-lock-only",
		"--depth --omit --include -w --workspace --workspaces", ""), ex("--depth=0", "")),
	sub("list", flags("-a --all --json --long -l --parseable -p --global -g --prod --production --dev --link", "--depth --omit --include --pattern", "")),
	sub("view", flags("--json", "-w --workspace", ""), ex("react version", "")),
	sub("info", flags("--json", "", "")),
	sub("outdated", flags("-a --all --json -l --long -p --parseable -g --global", "-w --workspace", "")),
}

// npmQueriesNamed are those of npmQueries that are also pnpm's or
// yarn's own queries.
func npmQueriesNamed(names ...string) []*argv.Command {
	var out []*argv.Command
	for _, c := range npmQueries {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// pipQueries are pip's read-only queries.
var pipQueries = []*argv.Command{
	sub("list", flags("-o --outdated -u --uptodate -e --editable -l --local --user --pre --not-required --exclude-editable --include-editable --no-index",
		"--path --format --exclude -i --index-url --extra-index-url -f --find-links", "")),
	sub("show", flags("-f --files -v --verbose", "", "")),
	sub("freeze", flags("-l --local --user --all --exclude-editable", "-r --requirement --path --exclude", "")),
}

// pipGlobal are pip's global options.
var pipGlobal = flags("-v --verbose -q --quiet --isolated --no-color --no-input --require-virtualenv --disable-pip-version-check", "--log --proxy --timeout --cache-dir --python", "")

// pkgTools are the package managers.
var pkgTools = []*Tool{
	{Name: "npm",
		Queries: []string{"ls", "list", "view", "info", "outdated", "why", "explain"}, ListsScripts: []string{"run", "run-script"},
		Cmd: tool("npm", flags("-v -s --silent -q --quiet -d --loglevel", "--prefix -w --workspace", ""), slices.Concat(npmQueries, []*argv.Command{
			// npm pkg get prints fields of package.json; set, delete and fix write it
			tool("pkg", flags("--json --workspaces --include-workspace-root", "-w --workspace", ""),
				sub("get", flags("--json --workspaces --include-workspace-root", "-w --workspace", ""), ex("name version", ""), ex("--json scripts", "")))})...),
		Hook:        "npm",
		Grant:       ByScript,
		Nested:      npmGroups,
		Installs:    installWords,
		Configures:  []string{"set"},
		Runs:        []string{"exec", "x"},
		Registry:    NPM,
		Version:     true,
		FetchesURLs: true,
		Examples: []argv.Example{
			want("ls --depth=0", "allow"), want("install -g typescript", "human human.outside-write"),
			want("pkg set scripts.x=y", "human human.persistence-write"), want("install --registry http://x.test", "ask ask.flag")},
	},
	{Name: "pnpm",
		// pnpm hands view and info to npm only as its first word, and runs
		// the script of a name it does not know (pnpm explain)
		Queries: []string{"ls", "list", "outdated", "why"}, ListsScripts: []string{"run", "run-script"},
		Cmd:         tool("pnpm", flags("-v -s --silent", "-C --dir --filter -F", ""), npmQueriesNamed("ls", "list", "outdated")...),
		Hook:        "npm",
		Grant:       ByScript,
		Nested:      npmGroups,
		Installs:    installWords,
		Configures:  []string{"set"},
		Runs:        []string{"dlx"},
		Registry:    NPM,
		Version:     true,
		FetchesURLs: true,
		Examples: []argv.Example{
			want("list", "allow"), want("add -g typescript", "human human.outside-write"), want("explain", "ask")},
	},
	{Name: "yarn",
		// the queries of yarn 1 and yarn 2+ alike: yarn 1 has no view, ls,
		// explain or run-script, yarn 2+ no list or outdated, and a name
		// it does not know runs the script (or node_modules/.bin program)
		Queries: []string{"info", "why"}, ListsScripts: []string{"run"},
		Cmd:         tool("yarn", flags("-v -s --silent", "--cwd", ""), npmQueriesNamed("info")...),
		Hook:        "npm",
		Grant:       ByScript,
		Nested:      npmGroups,
		Installs:    installWords,
		Runs:        []string{"dlx"},
		Registry:    NPM,
		Version:     true,
		FetchesURLs: true,
		Examples: []argv.Example{
			want("why react", "allow"), want("add https://x.test/p.tgz", "ask ask.flag"), want("view react", "ask"), want("list", "ask")},
	},
	{Name: "bun", Grant: ByScript, Installs: installWords, Runs: []string{"x"}, Registry: NPM, FetchesURLs: true, Examples: []argv.Example{want("x cowsay", "human human.remote-code")}},
	pipTool("pip", want("list", "allow"), want("config set global.index-url http://x.test", "human human.persistence-write")),
	pipTool("pip3", want("show requests", "allow")),
	{Name: "uv",
		Hook:        "uv", // uv pip install of a URL or VCS spec
		Grant:       BySub,
		Nested:      pipGroups,
		Installs:    installWords,
		OntoPath:    []string{"tool install"},
		Runs:        []string{"tool run"},
		Registry:    PyPI,
		Version:     true,
		FetchesURLs: true,
		Examples: []argv.Example{want("tool install ruff", "human human.outside-write"), want("pip install git+https://example.com/x.git", "human human.remote-code"),
			want("pip install -e git+https://example.com/x.git#egg=x", "human human.remote-code")},
	},
	{Name: "poetry",
		Grant:       BySub,
		Nested:      pipGroups,
		Installs:    installWords,
		Configures:  []string{"self add", "self install"},
		Version:     true,
		FetchesURLs: true,
		Examples:    []argv.Example{want("self add x", "human human.persistence-write")},
	},
	{Name: "cargo",
		Hook:        "cargo",
		Grant:       BySub,
		Nested:      []string{"install", "owner"},
		Installs:    installWords,
		OntoPath:    []string{"install"},
		DryRuns:     []string{"--list"},
		Version:     true,
		FetchesURLs: true,
		Examples: []argv.Example{
			want("build --target-dir /tmp/t", "human human.outside-write"), want("build --config x", "ask ask.flag"),
			want("install ripgrep", "human human.outside-write"), want("--version", "allow")},
	},
	{Name: "composer", Grant: BySub, Installs: installWords, FetchesURLs: true, Examples: []argv.Example{want("install", "ask")}},
	{Name: "bundle", Grant: BySub, Installs: installWords, FetchesURLs: true, Examples: []argv.Example{want("install", "ask")}},
	{Name: "brew",
		Grant:    BySub,
		Installs: installWords,
		// a launchd job started at every login
		Configures:  []string{"services start", "services restart", "services run"},
		OntoPath:    []string{"install", "reinstall", "upgrade", "tap", "bundle !dump|check|list"},
		FetchesURLs: true,
		Examples:    []argv.Example{want("install jq", "human human.outside-write")},
	},
	{Name: "apt", Grant: BySub, Installs: installWords, Examples: []argv.Example{want("install jq", "ask")}},
	{Name: "mix", Grant: BySub, Installs: installWords, Examples: []argv.Example{want("deps.get", "ask")}},
	// the version managers (their run forms are wrappers, wrappers.go):
	// a trusted config's tasks and hooks, a plugin, run with the tool;
	// conda's package sources change where later installs come from
	// (like npm set, git remote add)
	{Name: "mise", Configures: []string{"trust"}, Examples: []argv.Example{want("trust", "human human.persistence-write"), want("ls", "ask")}},
	{Name: "asdf", Configures: []string{"plugin add", "plugin-add"},
		Examples: []argv.Example{want("plugin add x", "human human.persistence-write"), want("plugin list", "ask")}},
	{Name: "conda", Configures: []string{"config --add|--set|--append|--prepend"},
		Examples: []argv.Example{want("config --set x y", "human human.persistence-write"), want("config --show", "ask")}},
	{Name: "gem",
		OntoPath:    []string{"install"},
		Version:     true,
		FetchesURLs: true,
		Examples:    []argv.Example{want("install rails", "human human.outside-write"), want("--version", "allow")},
	},
	// the package runners: a package the project does not have is
	// fetched (human.remote-code); deno and go run fetch modules
	{Name: "npx", Runs: []string{""}, Registry: NPM, Examples: []argv.Example{want("cowsay hi", "human human.remote-code")}},
	{Name: "pnpx", Runs: []string{""}, Registry: NPM, Examples: []argv.Example{want("cowsay hi", "human human.remote-code")}},
	{Name: "bunx", Runs: []string{""}, Registry: NPM, Examples: []argv.Example{want("cowsay hi", "human human.remote-code")}},
	{Name: "uvx",
		Runs:     []string{""},
		Registry: PyPI,
		Examples: []argv.Example{want("ruff check", "human human.remote-code")},
	},
	{Name: "pipx", OntoPath: []string{"install", "inject"}, Runs: []string{"run"}, Registry: PyPI, FetchesURLs: true, Examples: []argv.Example{want("run cowsay", "human human.remote-code"), want("install black", "human human.outside-write")}},
	{Name: "deno",
		Module:   "deno",
		Examples: []argv.Example{want("run https://x.test/m.ts", "human human.remote-code")},
	},
	// version control tools that fetch the URL they are given
	{Name: "svn", FetchesURLs: true, Examples: []argv.Example{want("checkout https://x.test/repo", "ask")}},
	{Name: "hg", FetchesURLs: true, Examples: []argv.Example{want("clone https://x.test/repo", "ask")}},
}

var toolIndex = index(Tools(), func(t *Tool) string { return t.Name })

// ToolOf is the tool declared for name, or nil.
func ToolOf(name string) *Tool { return toolIndex()[name] }

// Tools are the tools the table declares.
func Tools() []*Tool {
	return slices.Concat(pkgTools, buildTools, containerTools, cloudTools, []*Tool{gitTool}, senderTools, agentTools, resolverTools, openerTools, systemTools, macTools, secretTools)
}

// toolCmds are the tools' declarations of their flags.
func toolCmds() []*argv.Command {
	var out []*argv.Command
	for _, t := range Tools() {
		if t.Cmd != nil {
			out = append(out, t.Cmd)
		}
	}
	return out
}

// pipTool is pip's entry under one of its names (pip, pip3).
func pipTool(name string, ex ...argv.Example) *Tool {
	return &Tool{Name: name,
		Cmd:         tool(name, pipGlobal, pipQueries...),
		Hook:        "pip",
		Grant:       BySub,
		Nested:      pipGroups,
		Installs:    installWords,
		Configures:  []string{"config set", "config edit"},
		Version:     true,
		FetchesURLs: true,
		Examples:    ex,
	}
}
