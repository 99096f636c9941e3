package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The programs with subcommands whose family has no file of its own:
// git's entry is in git.go, the package, build, container and cloud
// tools' in pkg.go, build.go, containers.go and cloud.go.

// tools are the programs with subcommands the table declares.
var tools = []*argv.Command{
	withHook("service", tool("systemctl", flags("--user --system --no-pager --no-legend --full -l -a --all -q --quiet --plain", "-t --type --state -n --lines -o --output -p --property", ""),
		sub("status", flags("-l --full -a --all --no-pager --no-legend -q --quiet", "-n --lines -o --output", "")),
		sub("list-units", flags("-a --all --no-pager --no-legend --full -l --plain --recursive -r", "-t --type --state", "")),
		sub("is-active", flags("-q --quiet", "", "")), sub("is-enabled", flags("-q --quiet", "", "")))),
}
