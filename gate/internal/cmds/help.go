package cmds

import (
	"slices"
	"strings"
	"sync"
)

// A program's help and version flags, alone on its command line, print
// and exit: git --version, node --help, bash --version, ssh -V. That holds
// only where the program reads the word as that flag. A program that
// takes it for an operand runs or opens it instead (tclsh --help sources
// a file named --help, which a repository can ship; BSD nohup and
// proxychains run a program of that name; pwsh runs a script of that
// name); one that loads project code to build its help runs that code
// (pytest's conftest.py, mix's mix.exs, composer's plugins, hg's
// repository extensions, vagrant's Vagrantfile, mvnw and gradlew download
// a build tool first). Those are not listed, nor are the privilege
// escalators (sudo --help stays human-only like every sudo), the disk
// formatters (floors by name) and the power switches.

// Help is a program and the words that, alone, print its help or version.
type Help struct {
	Name  string
	Words []string
	// Subcommands: the help words also print a subcommand's help after
	// its name (docker run --help, npm install --help, git commit --help),
	// the tool reading them before it runs anything; Groups are the
	// subcommands that take one more subcommand name (docker compose up
	// --help). Any other word is an operand: docker run alpine --help
	// runs a container with --help as its command.
	Subcommands bool
	Groups      []string
}

// gnuHelp is the GNU spelling every listed program accepts.
var gnuHelp = []string{"--help", "--version"}

// helpFamily lists programs that take --help and --version (getopt_long,
// or their own parser reading both) and the extra words each family
// shares (perl -v, java -version). The list is read on the first lookup
// (helpsMerged), not at start-up.
func helpFamily(extra string, names string) []family {
	return []family{{extra: extra, names: names}}
}

// family is one helpFamily, as written.
type family struct{ extra, names string }

// helps expands the family into one Help per program.
func (f family) helps() []Help {
	var out []Help
	for _, n := range strings.Fields(f.names) {
		out = append(out, Help{Name: n, Words: slices.Concat(gnuHelp, strings.Fields(f.extra))})
	}
	return out
}

// helps are the programs whose help and version words only print.
var helps = slices.Concat(
	// GNU coreutils, findutils, util-linux and the like: getopt_long
	// reads both; BSD getopt rejects "--help" as an unknown option and
	// prints its usage, which changes nothing either
	helpFamily("", "cp mv rm rmdir mkdir touch ln install chmod chown chgrp chattr setfacl truncate shred split shuf iconv patch dd "+
		"env timeout nice ionice setsid stdbuf taskset chrt flock watch xargs unshare nsenter prlimit setpriv numactl capsh "+
		"systemd-run strace ltrace valgrind fakeroot faketime firejail bwrap parallel kill man less more most "+
		"fdisk sfdisk cfdisk blkdiscard"),
	// shells read both before any script operand (dash and mksh reject
	// them as options, never as a script)
	helpFamily("", "bash sh zsh dash ksh ksh93 mksh oksh pdksh posh yash fish tcsh csh ash rbash busybox toybox"),
	// interpreters and their own short spellings
	helpFamily("-V -h", "python python3 python3.12 pypy3"),
	helpFamily("-v -h", "node nodejs bun"),
	helpFamily("-V -h", "deno"),
	helpFamily("-v -h", "perl php"),
	helpFamily("-version", "java javac jshell"),
	helpFamily("", "ruby irb lua luajit julia rscript octave octave-cli gnuplot groovy sqlite3 psql mysql mariadb"),
	// toolchains, package managers and build tools that load no project
	// code to print their help
	helpFamily("-V", "cargo rustc rustup"),
	helpFamily("-v", "gcc g++ cc c++ clang clang++ cpp tcc make gmake"),
	helpFamily("", "zig swift dotnet go cmake ninja just task turbo nx protoc tsc eslint prettier mvn gradle "+
		"npm npx pnpm pnpx yarn bunx uv uvx pip pip3 pipx pipenv poetry pdm hatch rye conda mamba micromamba pixi gem bundle "+
		"asdf direnv devbox nix nix-shell guix pre-commit"),
	// version control, containers, clouds, secrets, agents, editors
	helpFamily("", "git svn gh glab docker podman nerdctl kubectl helm oc terraform tofu pulumi cdk cdktf "+
		"aws az gcloud gsutil vault op bw lpass pass gopass sops age gpg gpg2 aws-vault ansible-vault "+
		"claude codex gemini code codium cursor subl vim nvim emacs nano micro hx kak"),
	helpFamily("-v -version -help", "terraform tofu"),
	// network clients: help and version contact no host
	helpFamily("-V -h", "curl wget"),
	helpFamily("-V", "ssh autossh"),
	helpFamily("-V -h", "rsync"),
	helpFamily("", "scp sftp nc ncat netcat socat telnet openssl aria2c http https xh httpie rclone s3cmd croc wormhole "+
		"ngrok cloudflared tailscale"),
	// archivers
	helpFamily("", "tar bsdtar zip gzip gunzip 7z 7za 7zr 7zz rimraf del-cli"),
)

var helpIndex = sync.OnceValue(func() map[string]Help {
	return index(helpsMerged(), func(h Help) string { return h.Name })()
})

// subcommandHelp are the tools whose help words after a subcommand's name
// print that subcommand's help: cobra (docker, kubectl, helm, gh), clap
// (cargo), npm's usage flag, git (git help SUB), terraform's -help. Not
// go (go test passes unknown flags to the test binary it builds and runs)
// nor yarn and pnpm (yarn SCRIPT --help runs the script).
var subcommandHelp = map[string][]string{
	"docker": dockerGroups, "podman": dockerGroups, "nerdctl": dockerGroups,
	"kubectl": {"config", "rollout", "create", "auth", "certificate"}, "oc": {"config", "rollout", "create", "auth"},
	"helm":  {"repo", "plugin", "dependency", "get", "show", "registry"},
	"gh":    {"pr", "issue", "repo", "release", "run", "workflow", "gist", "auth", "secret", "variable", "label", "cache", "codespace", "project"},
	"glab":  {"mr", "issue", "repo", "release", "ci", "auth", "variable"},
	"git":   {"stash", "remote", "worktree", "submodule", "notes", "bisect", "lfs", "sparse-checkout"},
	"cargo": nil, "npm": nil, "terraform": {"state", "workspace", "providers"}, "tofu": {"state", "workspace", "providers"},
}

var dockerGroups = []string{"compose", "container", "image", "network", "volume", "buildx", "context", "system", "builder", "plugin", "manifest", "trust"}

// helpsMerged joins the words of a program listed in more than one family.
func helpsMerged() []Help {
	var out []Help
	at := map[string]int{}
	var all []Help
	for _, f := range helps {
		all = append(all, f.helps()...)
	}
	for _, h := range all {
		if i, ok := at[h.Name]; ok {
			out[i].Words = slices.Compact(slices.Sorted(slices.Values(slices.Concat(out[i].Words, h.Words))))
			continue
		}
		at[h.Name] = len(out)
		h.Groups, h.Subcommands = subcommandHelp[h.Name], subcommandHelp[h.Name] != nil || h.Name == "cargo" || h.Name == "npm"
		out = append(out, h)
	}
	return out
}

// HelpWord reports a word that, alone or with others of its kind, makes
// program name print its help or version and exit.
func HelpWord(name, word string) bool {
	h, ok := helpIndex()[name]
	return ok && slices.Contains(h.Words, word)
}

// HelpSubcommands is how many of args name subcommands before help words
// can follow (docker run --help: 1; docker compose up --help: 2; 0 for a
// program that reads them only alone).
func HelpSubcommands(name string, args []string) int {
	h := helpIndex()[name]
	if !h.Subcommands || len(args) == 0 || !subcommandName(args[0]) {
		return 0
	}
	if len(args) > 1 && slices.Contains(h.Groups, args[0]) && subcommandName(args[1]) {
		return 2
	}
	return 1
}

// subcommandName reports a word that can name a subcommand (run, pr,
// set-url): lower-case letters, digits and dashes.
func subcommandName(w string) bool {
	return w != "" && w[0] >= 'a' && w[0] <= 'z' && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}
