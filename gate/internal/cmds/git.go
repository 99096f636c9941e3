package cmds

import (
	"slices"
	"strings"
	"sync"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// git: its global options, and for each subcommand what it is to the gate
// (GitSub): its class, what its words reach (a remote, the work tree, a
// message file), the hook in gate/hooks_git.go that reads its flags and
// operands, and, for the read-only ones the gate finds known-safe, their
// flags. A subcommand not declared here asks (it is no known-safe query).

// git is git's entry: its global options end at the subcommand's name;
// its Subs are the subcommands whose flags are declared.
var git = tool("git", flags(gitSwitches, gitGlobalValues()+" --list-cmds", ""), gitDeclared()...)

// gitSwitches are git's global options without a value.
const gitSwitches = "-v -h -p --paginate -P --no-pager --no-replace-objects --no-lazy-fetch --bare --literal-pathspecs --glob-pathspecs " +
	"--noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice --exec-path --html-path --man-path --info-path"

// GitSwitch reports a global option without a value, spelled as git
// reads it: in full (no abbreviation, no cluster).
func GitSwitch(v string) bool {
	return v == "--help" || v == "--version" || slices.Contains(gitSwitchNames, v)
}

// gitSwitchNames are gitSwitches split once, not on every call.
var gitSwitchNames = strings.Fields(gitSwitches)

// GitOption is what one of git's global options does to the call.
type GitOption uint8

const (
	GitPlain     GitOption = iota // nothing the gate reads (--namespace)
	GitCwd                        // -C DIR: git runs in DIR
	GitConfig                     // -c KEY=VALUE: configuration, which can name programs git runs
	GitConfigEnv                  // --config-env KEY=ENVVAR: the same, from the environment
	GitExecPath                   // --exec-path=DIR: where git finds the programs it runs
	GitDir                        // --git-dir DIR: another repository, whose config can run programs
	GitWorkTree                   // --work-tree DIR: another work tree, where git writes
)

// GitGlobal is one of git's global options that takes a value or changes
// what the gate reads. git reads them as written (git.c handle_options):
// no abbreviation and no cluster; a long one takes its value after "=" or
// as the next word.
type GitGlobal struct {
	Name  string
	Does  GitOption
	Value bool // it takes a value
	// Prefix: every word starting with Name is this option (--exec-path,
	// --exec-path=DIR)
	Prefix bool
	// Examples are git's arguments and the gate's answer for them
	// (argv.Example.Want)
	Examples []argv.Example
}

// gitGlobals are the global options git's reader knows; any other word
// starting with "-" before the subcommand is an option without a value.
var gitGlobals = []GitGlobal{
	{Name: "-C", Does: GitCwd, Value: true, Examples: []argv.Example{want("-C sub status", "allow"), want("-C /home/u/other status", "ask ask.outside-read")}},
	{Name: "-c", Does: GitConfig, Value: true, Examples: []argv.Example{want("-c core.pager='rm -rf ~' log", "deny floor.rm-root"),
		want("-c user.name=x status", "ask ask.flag")}},
	{Name: "--config-env", Does: GitConfigEnv, Value: true, Examples: []argv.Example{want("--config-env core.pager=P log", "ask ask.flag")}},
	{Name: "--exec-path", Does: GitExecPath, Prefix: true, Examples: []argv.Example{want("--exec-path=/tmp/x status", "ask ask.flag")}},
	{Name: "--git-dir", Does: GitDir, Value: true, Examples: []argv.Example{want("--git-dir=/tmp/x/.git log", "ask ask.flag"),
		want("--git-dir /repo/.git status", "allow")}},
	{Name: "--work-tree", Does: GitWorkTree, Value: true, Examples: []argv.Example{want("--work-tree=/repo status", "allow")}},
	{Name: "--namespace", Value: true},
	{Name: "--super-prefix", Value: true},
	// git --attr-source HEAD push: HEAD is the option's value
	{Name: "--attr-source", Value: true, Examples: []argv.Example{want("--attr-source HEAD push --force origin main", "human human.force-push")}},
}

// GitGlobalOf is the global option word v spells, with its value when it
// is attached (--git-dir=DIR); nil when the table does not have it.
func GitGlobalOf(v string) (opt *GitGlobal, val string, attached bool) {
	name := v
	if strings.HasPrefix(v, "--") {
		name, val, attached = strings.Cut(v, "=")
	}
	for i := range gitGlobals {
		g := &gitGlobals[i]
		switch {
		case g.Prefix && strings.HasPrefix(v, g.Name):
			return g, "", false
		case g.Name == name && g.Value:
			return g, val, attached
		}
	}
	return nil, "", false
}

// gitGlobalValues are the names of the global options that take a value.
func gitGlobalValues() string {
	var names []string
	for _, g := range gitGlobals {
		if g.Value {
			names = append(names, g.Name)
		}
	}
	return strings.Join(names, " ")
}

// GitClass is what a git subcommand is whatever its flags.
type GitClass uint8

const (
	// GitHook: its hook decides from its flags and operands (push, branch)
	GitHook GitClass = iota
	// GitReads: it only reads: known-safe unless a flag writes or runs
	// something (status, log)
	GitReads
	// GitRewrites: every call rewrites history or destroys recovery
	// points: human-only (filter-branch, update-ref)
	GitRewrites
)

// GitPaths says when what a git subcommand prints is paths of the
// repository, a listing that may name secrets.
type GitPaths uint8

const (
	NoPaths GitPaths = iota
	// PathsAlways: it prints the paths its operands (pathspecs) select (ls-files)
	PathsAlways
	// PathsNameOnly: with --name-only (log, show, diff)
	PathsNameOnly
)

// GitSub is what the gate knows of a git subcommand, or of several that
// are read alike.
type GitSub struct {
	Names string // space-separated: "checkout restore switch"
	Class GitClass
	// Why is what it does that makes it human-only, after "git SUB "
	// (a GitRewrites class, or a hook's finding)
	Why string
	// Hook names the reader of its flags and operands in gate/hooks_git.go
	Hook string
	// Files names the reader of the files it writes or reads where its
	// options or operands say, outside the work tree (archive -o FILE,
	// apply --directory DIR), a hook read before the subcommand's
	Files string
	// Remote: it talks to a remote, so a secret among git's words is sent
	Remote bool
	// WorkTree: it writes files of the work tree (with --work-tree=DIR, in DIR)
	WorkTree bool
	// Message: -F/--file/-t/--template name a file it reads into history
	Message bool
	// Commands are its options whose value is a command git runs: long
	// ones by a unique prefix (rebase --exec, clone --upload-pack,
	// filter-branch --tree-filter), short ones also inside a cluster
	// (rebase -ix CMD, clone -qu CMD); --exec is the pack programs' old name
	Commands []string
	// ValueLetters are its short options that take a value, where a
	// cluster ends (clone -ob NAME: b is o's value, not an option)
	ValueLetters string
	// Installs are the flags or actions with which it installs hooks or
	// scheduled jobs that run later (git init --template, git maintenance
	// start): human-only persistence
	Installs []string
	// Serves: it serves the repository to the network (git daemon)
	Serves bool
	// Group: its next word is the action, so a grant names it too (git
	// stash list *, not git stash *)
	Group bool
	// GrantFlags: a grant covers only the exact call, unless the word
	// after the subcommand is one of these: then SUB FLAG * (git checkout
	// -b *; git checkout * would also cover git checkout -- f, which
	// discards work)
	GrantFlags []string
	// Paths: when it prints paths of the repository
	Paths GitPaths
	// NamesOnly: without a flag that asks for a patch it prints no contents of
	// the files its operands name, only their names and commits (git log,
	// the raw output of diff-tree)
	NamesOnly bool
	// Toplevel is the flag with which, alone, it prints the work tree's
	// root (rev-parse --show-toplevel), "" for none
	Toplevel string
	// Cmd declares its flags (one name only): a call the hook finds
	// known-safe with a flag not declared asks
	Cmd *argv.Command
	// Examples are git's arguments, subcommand first, and the gate's
	// answer for them (argv.Example.Want)
	Examples []argv.Example
}

// gitSubTable is git's subcommands.
var gitSubTable = []*GitSub{
	// staging a secret is the first step to publishing it
	{Names: "add stage", Hook: "stage", Examples: []argv.Example{want("add .env", "human human.sensitive-read"), want("add src", "ask")}},
	// a forced refspec overwrites local branches
	{Names: "fetch", Remote: true, Hook: "refspecs", Commands: []string{"--upload-pack", "--exec", "-u"}, ValueLetters: "jo", Examples: []argv.Example{want("fetch origin", "ask"), want("fetch origin +main:main", "human human.history-rewrite")}},
	{Names: "clone", Remote: true, Hook: "clone", Installs: []string{"--template"}, Commands: []string{"--upload-pack", "--exec", "-u"}, ValueLetters: "obcuj", Examples: []argv.Example{want("clone https://example.com/r.git", "ask"),
		want("clone -u 'rm -rf ~' https://example.com/r.git", "deny floor.rm-root"), want("clone -qu 'rm -rf ~' https://example.com/r.git", "deny floor.rm-root"),
		want("clone --config core.pager='rm -rf ~' https://example.com/r.git", "deny floor.rm-root")}},
	{Names: "push", Remote: true, Hook: "push", Commands: []string{"--receive-pack", "--exec"}, Examples: []argv.Example{want("push origin main", "ask"), want("push --force origin main", "human human.force-push"),
		want("push https://example.com/r.git", "ask ask.flag")}},
	{Names: "pull", Remote: true, WorkTree: true, Commands: []string{"--upload-pack", "--exec", "-u"}, ValueLetters: "sXjo", Examples: []argv.Example{want("pull", "ask")}},
	// a URL sends whatever it spells to any host; a configured remote is known-safe
	{Names: "ls-remote", Remote: true, Hook: "ls-remote", Commands: []string{"--upload-pack", "--exec"}, Examples: []argv.Example{want("ls-remote origin", "allow"), want("ls-remote https://example.com/r.git", "ask")}},
	{Names: "submodule", Remote: true, Group: true, Hook: "submodule", Examples: []argv.Example{want("submodule status", "allow"), want("submodule foreach 'rm -rf ~'", "deny floor.rm-root")}},
	// send-email runs its --*-cmd options' values through the shell
	{Names: "send-email", Remote: true, Commands: []string{"--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd"},
		Examples: []argv.Example{want("send-email --to-cmd='rm -rf ~' x.patch", "deny floor.rm-root"), want("send-email x.patch", "ask")}},
	{Names: "request-pull", Remote: true},
	{Names: "send-pack", Commands: []string{"--receive-pack", "--exec"}},
	{Names: "difftool", Commands: []string{"--extcmd", "-x"}, ValueLetters: "sXCt", Examples: []argv.Example{want("difftool -x 'rm -rf ~'", "deny floor.rm-root")}},
	{Names: "archive", Remote: true, Commands: []string{"--exec"}, Files: "archive-output", Examples: []argv.Example{want("archive -o out.tar HEAD", "ask")}},
	{Names: "reset", WorkTree: true, Hook: "reset", Examples: []argv.Example{want("reset --hard", "human human.history-rewrite"), want("reset HEAD~1", "ask")}},
	{Names: "clean", WorkTree: true, Hook: "clean", Examples: []argv.Example{want("clean -n", "allow"), want("clean -fd", "human human.history-rewrite")}},
	{Names: "checkout", WorkTree: true, Hook: "checkout", GrantFlags: []string{"-b"}, Examples: []argv.Example{want("checkout main", "ask"),
		want("checkout -- .", "human human.history-rewrite")}},
	{Names: "switch", WorkTree: true, Hook: "checkout", GrantFlags: []string{"-c", "--create"}, Examples: []argv.Example{want("switch -c x", "ask"),
		want("switch -C main", "human human.history-rewrite")}},
	{Names: "restore", WorkTree: true, Hook: "checkout", GrantFlags: []string{"--staged", "-S"}, Examples: []argv.Example{want("restore --staged a.go", "ask"),
		want("restore .", "human human.history-rewrite")}},
	{Names: "rm", WorkTree: true, Hook: "delete", Examples: []argv.Example{want("rm -r old", "ask"), want("rm --cached .env", "ask")}},
	{Names: "mv", WorkTree: true, Hook: "rename", Examples: []argv.Example{want("mv a.go b.go", "ask"), want("mv .env notes.txt", "human human.sensitive-read")}},
	{Names: "lfs", Group: true, Hook: "lfs", Examples: []argv.Example{want("lfs install", "human human.persistence-write"), want("lfs ls-files", "ask")}},
	// git credential fill prints the stored password
	{Names: "credential credential-store credential-cache credential-osxkeychain credential-libsecret credential-manager credential-wincred",
		Hook: "credential", Examples: []argv.Example{want("credential fill", "human human.sensitive-read")}},
	// filter-branch's filters are shell code it evals
	{Names: "filter-branch", Class: GitRewrites, Why: "rewrites history", Commands: []string{"--setup", "--env-filter", "--tree-filter",
		"--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"},
		Examples: []argv.Example{want("filter-branch --tree-filter 'rm -rf ~' HEAD", "deny floor.rm-root")}},
	{Names: "filter-repo replace", Class: GitRewrites, Why: "rewrites history", Examples: []argv.Example{want("filter-repo --path src", "human human.history-rewrite")}},
	{Names: "update-ref", Class: GitRewrites, Why: "moves or deletes a ref, past what the reflog shows",
		Examples: []argv.Example{want("update-ref -d refs/heads/x", "human human.history-rewrite")}},
	{Names: "prune", Class: GitRewrites, Why: "deletes unreachable commits, the last copy of lost work",
		Examples: []argv.Example{want("prune", "human human.history-rewrite")}},
	{Names: "gc", Hook: "gc", Why: "deletes unreachable commits, the last copy of lost work",
		Examples: []argv.Example{want("gc", "ask"), want("gc --prune=now", "human human.history-rewrite")}},
	// --abort and --quit end a rebase without rewriting more
	{Names: "rebase", WorkTree: true, Hook: "rebase", Commands: []string{"--exec", "-x"}, ValueLetters: "sXCt", Examples: []argv.Example{want("rebase main", "human human.history-rewrite"), want("rebase --abort", "ask")}},
	{Names: "commit", Message: true, Hook: "amend", Examples: []argv.Example{want("commit -m x", "ask"), want("commit --amend", "human human.history-rewrite"),
		want("commit -F /home/u/.ssh/id_rsa", "human human.sensitive-read")}},
	// notes list prints which notes annotate which objects, notes show
	// one note; the other actions write notes
	{Names: "notes", Message: true, Group: true, Hook: "queries", Cmd: tool("notes", flags("", "--ref", ""), sub("list", flags("", "", "")), sub("show", flags("", "", ""))),
		Examples: []argv.Example{want("notes list", "allow"), want("notes --ref=review show HEAD", "allow"), want("notes add -m x HEAD", "ask")}},
	// bisect log prints the session's log; bisect run CMD runs CMD
	// (gate/hooks_git.go runsCommand)
	{Names: "bisect", Group: true, Hook: "queries", Cmd: tool("bisect", flags("", "", ""), sub("log", flags("", "", ""))),
		Examples: []argv.Example{want("bisect log", "allow"), want("bisect run rm -rf ~", "deny floor.rm-root"), want("bisect start", "ask")}},
	{Names: "maintenance", Group: true, Installs: []string{"start", "register"}, Examples: []argv.Example{want("maintenance run", "ask"),
		want("maintenance start", "human human.persistence-write")}},
	// the template's hooks run at the next commit
	{Names: "init", Installs: []string{"--template"}, Examples: []argv.Example{want("init", "ask"), want("init --template=/tmp/t", "human human.persistence-write")}},
	// every interface, no authentication
	{Names: "daemon instaweb", Serves: true, Examples: []argv.Example{want("daemon --export-all", "human human.file-server")}},
	{Names: "merge", Message: true, WorkTree: true},
	{Names: "cherry-pick revert", WorkTree: true},
	{Names: "apply am", WorkTree: true, Files: "patches", Examples: []argv.Example{want("apply fix.diff", "ask"),
		want("apply --directory=/home/u fix.diff", "human human.outside-write")}},
	{Names: "hash-object", Files: "hash-object", Examples: []argv.Example{want("hash-object -w .env", "human human.sensitive-read")}},
	// -u with -f, --reset or --force overwrite the work tree
	{Names: "read-tree", WorkTree: true, Hook: "overwrite", Examples: []argv.Example{want("read-tree -u --reset HEAD", "human human.history-rewrite")}},
	{Names: "checkout-index", WorkTree: true, Hook: "overwrite", Files: "index-prefix", Examples: []argv.Example{want("checkout-index -f -a", "human human.history-rewrite")}},
	{Names: "branch", Hook: "branch", Cmd: sub("branch", flags("-a --all -r --remotes -l --list -v -vv --verbose -q --quiet --show-current --no-color --color --no-column -i --ignore-case "+
		"--omit-empty", "--contains --no-contains --merged --no-merged --points-at --sort --format --abbrev", "--column --color --abbrev"),
		ex("-a", ""), ex("--show-current", "")),
		Examples: []argv.Example{want("branch -a", "allow"), want("branch -D old", "human human.history-rewrite"), want("branch new", "ask")}},
	{Names: "stash", WorkTree: true, Group: true, Hook: "stash", Cmd: tool("stash", flags("", "", ""), gitLog("list"), gitLog("show")),
		Examples: []argv.Example{want("stash list", "allow"), want("stash drop", "human human.history-rewrite"), want("stash", "ask")}},
	{Names: "tag", Message: true, Hook: "tag", Cmd: sub("tag", flags("-l --list -n --column --no-column --ignore-case -i --omit-empty",
		"--contains --no-contains --merged --no-merged --points-at --sort --format", "--column --color"), ex("-l", ""), ex("--sort=-creatordate", "")),
		Examples: []argv.Example{want("tag -l", "allow"), want("tag --contains HEAD", "allow"), want("tag -d v1", "human human.history-rewrite"), want("tag v2", "ask"),
			want("tag -f --points-at HEAD v1", "human human.history-rewrite")}},
	// git remote -v prints the URLs, a token written into one too
	{Names: "remote", Group: true, Hook: "remote", Cmd: sub("remote", flags("-v --verbose", "", "")),
		Examples: []argv.Example{want("remote -v", "allow"), want("remote add x https://example.com/r.git", "human human.persistence-write")}},
	{Names: "worktree", Group: true, Hook: "worktree", Examples: []argv.Example{want("worktree list", "allow"), want("worktree remove --force w", "human human.history-rewrite")}},
	{Names: "symbolic-ref", Hook: "symbolic-ref", Examples: []argv.Example{want("symbolic-ref HEAD", "allow"), want("symbolic-ref HEAD refs/heads/x", "human human.history-rewrite")}},
	// git reflog [show] is git log -g: it takes log's options, -20 too
	{Names: "reflog", Group: true, Hook: "reflog", NamesOnly: true, Paths: PathsNameOnly, Cmd: gitLog("reflog"),
		Examples: []argv.Example{want("reflog", "allow"), want("reflog -10", "allow"), want("reflog expire --all", "human human.history-rewrite"),
			want("reflog -p .env", "human human.sensitive-read")}},
	{Names: "config", Hook: "config", Cmd: sub("config", flags("--get --get-all --get-regexp --get-urlmatch -l --list --global --system --local --worktree --name-only --show-origin --show-scope "+
		"-z --null --bool --int --bool-or-int --path --expiry-date --includes --no-includes", "--type --default -f --file --blob", ""),
		ex("--get user.name", ""), ex("--list --show-origin", "")),
		Examples: []argv.Example{want("config --get user.name", "allow"), want("config --list", "ask ask.config-dump"),
			want("config --get http.extraHeader", "human human.sensitive-read")}},
	{Names: "var", Hook: "var", Examples: []argv.Example{want("var GIT_EDITOR", "allow"), want("var -l", "ask ask.config-dump")}},
	{Names: "blame", Class: GitReads, Hook: "blame", Cmd: sub("blame", flags("-b --root --show-stats -l -t -p --porcelain --line-porcelain --incremental -c -s -n --show-number -e --show-email -w "+
		"-f --show-name --score-debug --minimal --progress --no-progress --color-lines --color-by-age -M -C",
		"-L -S --reverse --since --ignore-rev --ignore-revs-file --abbrev --encoding --first-parent", ""), ex("-L 1,5 README.md", "")),
		Examples: []argv.Example{want("blame README.md", "allow"), want("blame .env", "human human.sensitive-read")}},
	{Names: "annotate", Class: GitReads, Hook: "blame", Examples: []argv.Example{want("annotate .env", "human human.sensitive-read")}},
	{Names: "show", Class: GitReads, Hook: "show", Paths: PathsNameOnly, Cmd: gitLog("show", ex("HEAD --stat", ""), ex("--name-only HEAD", "")),
		Examples: []argv.Example{want("show HEAD", "allow"), want("show HEAD:.env", "human human.sensitive-read")}},
	// --batch and --batch-command print the objects stdin names (echo
	// HEAD:.env | git cat-file --batch), which the gate does not see;
	// --batch-check prints only their type and size
	{Names: "cat-file", Class: GitReads, Hook: "show", Cmd: sub("cat-file", with(flags("-t -s -e -p --mailmap --no-mailmap --textconv --filters --batch-all-objects --buffer --unordered --follow-symlinks -Z",
		"--path", "--batch-check --allow-unknown-type --use-mailmap"), notSafe("--batch", argv.Optional), notSafe("--batch-command", argv.Optional)), ex("-p HEAD", "")),
		Examples: []argv.Example{want("cat-file -p HEAD:.env", "human human.sensitive-read"), want("cat-file --batch", "ask ask.flag"),
			want("cat-file --batch-check", "allow")}},
	// operands may be paths: git diff .env shows the secret's changes
	{Names: "log", Class: GitReads, Hook: "log", NamesOnly: true, Paths: PathsNameOnly, Cmd: gitLog("log", ex("--oneline -20", ""), ex("-p --stat README.md", ""), ex("--format=%H -n 1", ""), ex("--output=x", "--output=x")),
		Examples: []argv.Example{want("log --oneline -20", "allow"), want("log -p .env", "human human.sensitive-read"), want("log --output=x", "ask ask.flag"), want("log --outp x", "ask ask.flag")}},
	{Names: "whatchanged", Class: GitReads, Hook: "log", Cmd: gitLog("whatchanged"), Examples: []argv.Example{want("whatchanged -p .env", "human human.sensitive-read")}},
	{Names: "diff", Class: GitReads, Hook: "log", Paths: PathsNameOnly, Cmd: sub("diff", flags(gitDiffFlags+" --cached --staged --no-index", gitDiffValues, gitOptional),
		ex("--stat", ""), ex("--cached --name-only", ""), ex("HEAD~1 -- src/", ""), ex("--ext-diff", "--ext-diff")),
		Examples: []argv.Example{want("diff --stat", "allow"), want("diff .env", "human human.sensitive-read"), want("diff --ext-diff", "ask ask.flag")}},
	{Names: "show-branch", Class: GitReads, Hook: "log", NamesOnly: true, Examples: []argv.Example{want("show-branch", "allow")}},
	// the plumbing diffs print raw lines (modes, hashes, names) unless -p
	// asks for the patch, which shows a secret's changes like git diff
	{Names: "diff-tree diff-index diff-files", Class: GitReads, Hook: "log", NamesOnly: true,
		Examples: []argv.Example{want("diff-tree HEAD -- .env", "allow"), want("diff-tree -p HEAD -- .env", "human human.sensitive-read"),
			want("diff-index -p HEAD -- .env", "human human.sensitive-read"), want("diff-files -p .env", "human human.sensitive-read")}},
	{Names: "range-diff", Class: GitReads, Hook: "log", Examples: []argv.Example{want("range-diff main...x -- .env", "human human.sensitive-read")}},
	{Names: "grep", Class: GitReads, Hook: "search", Cmd: gitGrep.Cmd,
		Examples: []argv.Example{want("grep -n TODO", "allow"), want("grep -O vim TODO", "ask ask.flag"), want("grep -f .env", "human human.sensitive-read"),
			want("grep -f patterns.txt", "allow")}},
	{Names: "status", Class: GitReads, Cmd: sub("status", flags("-s --short -b --branch --show-stash --long -v --verbose --ignored --no-renames --renames --ahead-behind --no-ahead-behind -z --no-column",
		"--find-renames", "--porcelain -u --untracked-files --ignore-submodules --column --ignored"), ex("--porcelain", ""), ex("-sb", "")),
		Examples: []argv.Example{want("status", "allow"), want("status --bogus", "ask ask.flag")}},
	{Names: "rev-parse", Class: GitReads, Cmd: sub("rev-parse", flags("--verify -q --quiet --short --abbrev-ref --symbolic --symbolic-full-name --all --branches --tags --remotes "+
		"--show-toplevel --show-cdup --show-prefix --git-dir --git-common-dir --absolute-git-dir --is-inside-git-dir --is-inside-work-tree "+
		"--is-bare-repository --is-shallow-repository --show-superproject-working-tree --shared-index-path --local-env-vars --revs-only "+
		"--no-revs --flags --no-flags --sq --sq-quote --not --default --show-object-format --show-ref-format --parseopt --keep-dashdash "+
		"--stop-at-non-option --stuck-long",
		"--prefix --since --after --until --before --resolve-git-dir --git-path --disambiguate --exclude --glob --path-format",
		"--short --abbrev-ref --branches --tags --remotes --show-object-format"), ex("--show-toplevel", ""), ex("HEAD", "")),
		Toplevel: "--show-toplevel", Examples: []argv.Example{want("rev-parse --show-toplevel", "allow")}},
	{Names: "ls-files", Class: GitReads, Paths: PathsAlways, Cmd: sub("ls-files", with(flags("-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -k --killed -u --unmerged "+
		"--directory --no-empty-directory --eol --error-unmatch -t -v -f --full-name --recurse-submodules --deduplicate -z --sparse --exclude-standard --resolve-undo",
		"-x --exclude --exclude-per-directory --with-tree --format", "--abbrev --debug"), reads("-X --exclude-from")), ex("-o --exclude-standard", "")),
		Examples: []argv.Example{want("ls-files", "allow"), want("ls-files -X .env", "human human.sensitive-read")}},
	{Names: "ls-tree", Class: GitReads, Cmd: sub("ls-tree", flags("-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree", "--format", "--abbrev"), ex("-r HEAD", ""))},
	{Names: "describe", Class: GitReads, Cmd: sub("describe", flags("--all --tags --long --always --first-parent --exact-match --debug --contains", "--abbrev --candidates --match --exclude", "--dirty --broken"),
		ex("--tags --always", ""))},
	// git fsck checks the object database and prints what it finds
	// broken, dangling or unreachable; --lost-found writes the dangling
	// objects into .git/lost-found and is not declared
	{Names: "fsck", Class: GitReads, Cmd: sub("fsck", flags("--unreachable --dangling --no-dangling --root --tags --cache --no-reflogs --full --no-full "+
		"--connectivity-only --strict --verbose -v --name-objects --progress --no-progress --references --no-references", "", ""), ex("--no-progress", ""), ex("--lost-found", "--lost-found")),
		Examples: []argv.Example{want("fsck --no-progress", "allow"), want("fsck --lost-found", "ask ask.flag")}},
	{Names: "shortlog", Class: GitReads, Cmd: sub("shortlog", flags("-n --numbered -s --summary -e --email -c --committer "+gitRevFlags, "--format --group "+gitRevValues, "-w"), ex("-sn", ""))},
	{Names: "merge-base name-rev rev-list show-ref for-each-ref count-objects check-ignore check-attr help version cherry " +
		"verify-commit verify-tag", Class: GitReads, Examples: []argv.Example{want("merge-base main HEAD", "allow")}},
}

// gitRiskyFlags are flags any git subcommand may take that write a file
// or run a program, so the call asks whatever rule covers it (git log
// --output=FILE, git diff --ext-diff, git grep -Ovim, git fetch
// --upload-pack=CMD). git takes a unique prefix of a long option (--outp).
var gitRiskyFlags = []argv.Flag{
	writes("--output"),
	{Names: "--ext-diff --exec-path --upload-pack --receive-pack --exec --open-files-in-pager", Role: argv.Run, Each: true},
	{Names: "-O", Arity: argv.Optional, Role: argv.Run}, // the pager, the rest of its word: -Ovim
}

// GitFlagNames are the spellings of a group of git's flags: the long ones,
// the short ones, and the long ones whose value is a file git writes.
type GitFlagNames struct{ Long, Short, Writes []string }

// GitRisky are the spellings of the flags that write a file or run a
// program, whatever the subcommand.
var GitRisky = sync.OnceValue(func() GitFlagNames {
	var n GitFlagNames
	for _, f := range gitRiskyFlags {
		for _, name := range strings.Fields(f.Names) {
			switch {
			case strings.HasPrefix(name, "--") && f.Role == argv.Write:
				n.Long, n.Writes = append(n.Long, name), append(n.Writes, name)
			case strings.HasPrefix(name, "--"):
				n.Long = append(n.Long, name)
			default:
				n.Short = append(n.Short, name)
			}
		}
	}
	return n
})

// gitTool is how an "always" answer to git is worded: per subcommand, and
// for its groups per action (git stash list *).
var gitTool = &Tool{Name: "git", Hook: "git", FetchesURLs: true, Version: true, Cmd: git, Grant: BySub, GrantFlags: gitGrantFlags, Nested: gitGroups(), Configures: gitInstalls(),
	Serves:   GitServers(),
	Examples: []argv.Example{want("status", "allow"), want("-C /tmp/x push --force", "human human.force-push")}}

// gitGrantFlags are git subcommand sub's GitSub GrantFlags, nil for none.
func gitGrantFlags(sub string) []string {
	if s := GitSubOf(sub); s != nil {
		return s.GrantFlags
	}
	return nil
}

// gitGroups are the names of git's subcommands that group actions.
func gitGroups() []string {
	var out []string
	for _, s := range gitSubTable {
		if s.Group {
			out = append(out, strings.Fields(s.Names)...)
		}
	}
	return out
}

// gitInstalls are the forms in which git installs what runs later, each
// "SUB WORD" (git maintenance start) or "SUB -FLAG" (git init --template).
func gitInstalls() []string {
	var out []string
	for _, s := range gitSubTable {
		for _, n := range strings.Fields(s.Names) {
			for _, w := range s.Installs {
				out = append(out, n+" "+w)
			}
		}
	}
	return out
}

// GitServers are the subcommands that serve the repository to the network.
func GitServers() []string {
	var out []string
	for _, s := range gitSubTable {
		if s.Serves {
			out = append(out, strings.Fields(s.Names)...)
		}
	}
	return out
}

// gitDeclared are the Cmds of git's subcommands: those whose flags are declared.
func gitDeclared() []*argv.Command {
	var out []*argv.Command
	for _, s := range gitSubTable {
		if s.Cmd != nil {
			out = append(out, s.Cmd)
		}
	}
	return out
}

// gitSubIndex is git's subcommands by each of their names.
var gitSubIndex = sync.OnceValue(func() map[string]*GitSub {
	m := map[string]*GitSub{}
	for _, s := range gitSubTable {
		for _, n := range strings.Fields(s.Names) {
			if _, dup := m[n]; dup {
				panic("cmds: git " + n + " is declared twice")
			}
			m[n] = s
		}
	}
	return m
})

// GitSubOf is what the table says of git subcommand name, nil when it
// does not have it.
func GitSubOf(name string) *GitSub { return gitSubIndex()[name] }

// GitDashed is the git subcommand a dashed program name stands for, as git's
// exec-path holds them (git-grep is git grep), and whether the table has it.
func GitDashed(name string) (sub string, ok bool) {
	sub, ok = strings.CutPrefix(name, "git-")
	return sub, ok && GitSubOf(sub) != nil
}

// GitGlobals are git's global options, for tests.
func GitGlobals() []GitGlobal { return gitGlobals }

// GitSubs are git's subcommands, for tests.
func GitSubs() []*GitSub { return gitSubTable }

// gitDiffFlags are the diff and pretty-format options git log, show and
// diff share, but --output (writes a file), --ext-diff and --textconv
// (run configured programs).
const gitDiffFlags = "-p -u --patch -s --no-patch --raw --patch-with-raw -t --numstat --shortstat --summary --patch-with-stat " +
	"-z --name-only --name-status --submodule --color --no-color --color-moved --no-color-moved --color-words --word-diff " +
	"--no-renames --rename-empty --no-rename-empty --check --full-index --binary --abbrev -B --break-rewrites -M --find-renames " +
	"-C --find-copies --find-copies-harder -D --irreversible-delete -R --relative --no-relative -a --text --ignore-cr-at-eol " +
	"--ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space --ignore-blank-lines --minimal --patience --histogram " +
	"--indent-heuristic --no-indent-heuristic --function-context -W --exit-code --quiet --no-ext-diff --no-textconv " +
	"--ignore-submodules --no-prefix --default-prefix --ita-invisible-in-index --ita-visible-in-index --cumulative --merge-base " +
	"--pickaxe-all --pickaxe-regex --compact-summary --cc -c --combined-all-paths -m --dd --remerge-diff --diff-merges --no-diff-merges " +
	"--first-parent --stat --dirstat --full-diff --log-size --no-abbrev --ignore-matching-lines"

const gitDiffValues = "--stat-width --stat-name-width --stat-count --stat-graph-width --diff-algorithm --anchored -l --diff-filter " +
	"-S -G --find-object -O --src-prefix --dst-prefix --line-prefix --inter-hunk-context --unified -U --output-indicator-new " +
	"--output-indicator-old --output-indicator-context --word-diff-regex --color-moved-ws --skip-to --rotate-to -I"

// gitRevFlags are git log's revision and formatting options.
const gitRevFlags = "--oneline --graph --all --branches --tags --remotes --decorate --no-decorate --source --use-mailmap --mailmap " +
	"--follow --no-walk --do-walk --reverse --merges --no-merges --boundary --left-right --left-only --right-only --cherry " +
	"--cherry-mark --cherry-pick --topo-order --date-order --author-date-order --abbrev-commit --no-abbrev-commit --parents --children " +
	"--walk-reflogs -g --regexp-ignore-case -i --extended-regexp -E --fixed-strings -F --perl-regexp -P --invert-grep --all-match " +
	"--simplify-by-decoration --full-history --dense --sparse --simplify-merges --ancestry-path --show-pulls --bisect --stdin " +
	"--relative-date --show-signature --show-notes --no-notes --standard-notes --no-standard-notes --show-linear-break --notes " +
	"--clear-decorations --count --ignore-missing --single-worktree --reflog --alternate-refs --indexed-objects --no-min-parents --no-max-parents"

const gitRevValues = "-n --max-count --skip --since --after --until --before --author --committer --grep --grep-reflog " +
	"--min-parents --max-parents --encoding --expand-tabs --format --pretty --date --decorate-refs --decorate-refs-exclude -L " +
	"--since-as-filter --exclude --glob --exclude-hidden --max-age --min-age"

// gitValues are the values taken by optional-valued spellings of the diff
// and log options (--stat=80, --color=always, --decorate=short).
const gitOptional = "--stat --dirstat --color --decorate --abbrev --word-diff --color-moved --submodule --relative " +
	"--find-renames --find-copies --break-rewrites --ignore-submodules --notes --show-notes --color-words --diff-merges " +
	"--cc --first-parent --no-walk --date --pretty --format --graph --patch-with-stat --show-linear-break --dd"

func gitLog(name string, ex ...argv.Example) *argv.Command {
	c := sub(name, flags(gitDiffFlags+" "+gitRevFlags, gitDiffValues+" "+gitRevValues, gitOptional), ex...)
	c.Numeric = true // git log -20
	return c
}
