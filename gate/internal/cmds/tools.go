package cmds

import (
	"slices"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// The read-only subcommands of the container, Go and package tools that
// the gate's code finds known-safe, with their flags (git's are in
// git.go). A subcommand not declared here is decided by the code alone.

// dockerPs and the other docker queries.
var dockerSubs = []*argv.Command{
	sub("ps", flags("-a --all -l --latest --no-trunc -q --quiet -s --size", "-f --filter --format -n --last", "")),
	sub("images", flags("-a --all --digests --no-trunc -q --quiet --tree", "-f --filter --format", "")),
	sub("logs", flags("--details -f --follow -t --timestamps", "--since --until -n --tail", ""), ex("--tail 50 web", "")),
	sub("inspect", flags("-s --size", "-f --format --type", ""), ex("-f '{{.State}}' web", "")),
	sub("version", flags("", "-f --format --kubeconfig", "")),
	sub("info", flags("", "-f --format", "")),
	tool("compose", flags("--all-resources --compatibility --dry-run", "-f --file -p --project-name --profile --project-directory --progress --ansi --parallel", ""),
		sub("ps", flags("-a --all --no-trunc --orphans -q --quiet --services", "--filter --format --status", "")),
		sub("logs", flags("-f --follow --no-color --no-log-prefix -t --timestamps", "--since --until -n --tail --index", ""))),
}

// goSubs are the go command's queries.
var goSubs = []*argv.Command{
	sub("version", flags("-m -v", "", "")),
	sub("env", flags("-json -changed", "", "")),
	sub("list", flags("-compiled -deps -e -export -find -json -m -retracted -test -u -versions -reuse -a -n -x -v -race -msan -asan -trimpath -mod=mod -mod=readonly -mod=vendor",
		"-f -tags -mod -C", ""), ex("./...", ""), ex("-m all", ""), ex("-f '{{.Dir}}' .", "")),
	sub("doc", flags("-all -c -cmd -short -src -u", "", "")),
}

// npmQueries are npm's read-only queries (and pnpm's, yarn's).
var npmQueries = []*argv.Command{
	sub("ls", flags("-a --all --json --long -l --parseable -p --global -g --prod --production --dev --link --unicode -s --silent --no-unicode --include-workspace-root --package-lock-only",
		"--depth --omit --include -w --workspace --workspaces", ""), ex("--depth=0", "")),
	sub("list", flags("-a --all --json --long -l --parseable -p --global -g --prod --production --dev --link", "--depth --omit --include --pattern", "")),
	sub("view", flags("--json", "-w --workspace", ""), ex("react version", "")),
	sub("info", flags("--json", "", "")),
	sub("outdated", flags("-a --all --json -l --long -p --parseable -g --global", "-w --workspace", "")),
}

// tools are the programs with subcommands the table declares.
var tools = []*argv.Command{
	git,
	tool("docker", flags("-D --debug --tls --tlsverify", "--context -c -H --host -l --log-level --config --tlscacert --tlscert --tlskey", ""), dockerSubs...),
	tool("podman", flags("--debug", "--connection -c --url --log-level --root --runroot", ""), dockerSubs...),
	tool("go", flags("", "", ""), goSubs...),
	tool("npm", flags("-v -s --silent -q --quiet -d --loglevel", "--prefix -w --workspace", ""), slices.Concat(npmQueries, []*argv.Command{
		// npm pkg get prints fields of package.json; set, delete and fix write it
		tool("pkg", flags("--json --workspaces --include-workspace-root", "-w --workspace", ""),
			sub("get", flags("--json --workspaces --include-workspace-root", "-w --workspace", ""), ex("name version", ""), ex("--json scripts", "")))})...),
	tool("pnpm", flags("-v -s --silent", "-C --dir --filter -F", ""), npmQueries...),
	tool("yarn", flags("-v -s --silent", "--cwd", ""), npmQueries...),
	tool("pip", flags("-v --verbose -q --quiet --isolated --no-color --no-input --require-virtualenv --disable-pip-version-check", "--log --proxy --timeout --cache-dir --python", ""), pipQueries...),
	tool("pip3", flags("-v --verbose -q --quiet --isolated --no-color --no-input --require-virtualenv --disable-pip-version-check", "--log --proxy --timeout --cache-dir --python", ""), pipQueries...),
	tool("systemctl", flags("--user --system --no-pager --no-legend --full -l -a --all -q --quiet --plain", "-t --type --state -n --lines -o --output -p --property", ""),
		sub("status", flags("-l --full -a --all --no-pager --no-legend -q --quiet", "-n --lines -o --output", "")),
		sub("list-units", flags("-a --all --no-pager --no-legend --full -l --plain --recursive -r", "-t --type --state", "")),
		sub("is-active", flags("-q --quiet", "", "")), sub("is-enabled", flags("-q --quiet", "", ""))),
}

// pipQueries are pip's read-only queries.
var pipQueries = []*argv.Command{
	sub("list", flags("-o --outdated -u --uptodate -e --editable -l --local --user --pre --not-required --exclude-editable --include-editable --no-index",
		"--path --format --exclude -i --index-url --extra-index-url -f --find-links", "")),
	sub("show", flags("-f --files -v --verbose", "", "")),
	sub("freeze", flags("-l --local --user --all --exclude-editable", "-r --requirement --path --exclude", "")),
}

// gitTool is how an "always" answer to git is worded: per subcommand, and
// for its groups per action (git stash list *).
var gitTool = &Tool{Name: "git", Grant: BySub,
	Nested: []string{"stash", "remote", "worktree", "submodule", "notes", "lfs", "bisect", "reflog", "maintenance"}}
