package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The container and cluster CLIs (Tool, pkg.go).

// dockerGrantGroups are the docker subcommands a grant names with their
// action (help.go's dockerGroups: those whose help words follow it).
var dockerGrantGroups = []string{"compose", "container", "image", "volume", "network", "system", "context", "buildx"}

// dockerPs and dockerImages are docker ps's and docker images's flags,
// also those of their management-command spellings (container ls, image ls).
var (
	dockerPs     = flags("-a --all -l --latest --no-trunc -q --quiet -s --size", "-f --filter --format -n --last", "")
	dockerImages = flags("-a --all --digests --no-trunc -q --quiet --tree", "-f --filter --format", "")
)

// dockerSubs are the docker queries: what the docker hook finds known-safe
// (gate/hooks_container.go dockerCLI), with their flags.
var dockerSubs = []*argv.Command{
	sub("ps", dockerPs),
	sub("images", dockerImages),
	tool("container", flags("", "", ""), sub("ls", dockerPs), sub("list", dockerPs), sub("ps", dockerPs)),
	tool("image", flags("", "", ""), sub("ls", dockerImages), sub("list", dockerImages)),
	// stats and top print a container's resource use and processes (not
	// history: the commands that built an image hold its build arguments)
	sub("stats", flags("-a --all --no-stream --no-trunc", "--format", ""), ex("--no-stream", "")),
	sub("top", flags("", "", "")),
	sub("logs", flags("--details -f --follow -t --timestamps", "--since --until -n --tail", ""), ex("--tail 50 web", "")),
	sub("inspect", flags("-s --size", "-f --format --type", ""), ex("-f '{{.State}}' web", "")),
	sub("version", flags("", "-f --format --kubeconfig", "")),
	sub("info", flags("", "-f --format", "")),
	tool("compose", flags("--all-resources --compatibility --dry-run", "-f --file -p --project-name --profile --project-directory --progress --ansi --parallel", ""),
		sub("ps", flags("-a --all --no-trunc --orphans -q --quiet --services", "--filter --format --status", "")),
		sub("logs", flags("-f --follow --no-color --no-log-prefix -t --timestamps", "--since --until -n --tail --index", ""))),
}

// containerTools are the container and cluster CLIs.
var containerTools = []*Tool{
	{Name: "docker",
		Cmd:         tool("docker", flags("-D --debug --tls --tlsverify", "--context -c -H --host -l --log-level --config --tlscacert --tlscert --tlskey", ""), dockerSubs...),
		Hook:        "docker",
		Grant:       BySub,
		Nested:      dockerGrantGroups,
		Configures:  []string{"context create", "context use", "plugin install"},
		Version:     true,
		FetchesURLs: true,
		Examples: []argv.Example{want("ps -a", "allow"), want("compose config", "human human.sensitive-read"), want("image ls", "allow"),
			want("container ls -a", "allow"), want("stats --no-stream", "allow"), want("image rm web", "ask"), want("container rm -f web", "ask")},
	},
	{Name: "podman",
		Cmd:         tool("podman", flags("--debug", "--connection -c --url --log-level --root --runroot", ""), dockerSubs...),
		Hook:        "docker",
		Grant:       BySub,
		Nested:      dockerGrantGroups,
		FetchesURLs: true,
		Examples:    []argv.Example{want("images", "allow")},
	},
	// nerdctl's grant is the exact command (docker's per subcommand)
	{Name: "nerdctl", Hook: "docker", Examples: []argv.Example{want("ps", "allow"), want("inspect web", "ask ask.flag")}},
	// kubectl get pods must not cover kubectl get secrets
	{Name: "kubectl",
		Hook:       "kube",
		Grant:      BySub,
		AllNested:  true,
		Secrets:    []string{"get secret -o|--output", "get secrets -o|--output", "create token", "config view --raw|--flatten"},
		Configures: []string{"config set-credentials", "config set"},
		Version:    true,
		Uninstalls: []string{"uninstall"},
		Examples:   []argv.Example{want("delete ns prod", "human human.teardown")},
	},
	// oc's and the cloud CLIs' groups are declared, but their grant is the
	// exact command (the gate never granted oc get pods *)
	{Name: "oc",
		Hook:       "kube",
		AllNested:  true,
		Secrets:    []string{"get secret -o|--output", "get secrets -o|--output", "create token", "whoami -t|--show-token", "config view --raw|--flatten"},
		Configures: []string{"config set-credentials", "config set"},
		Uninstalls: []string{"uninstall"},
		Examples:   []argv.Example{want("delete namespace prod", "human human.teardown"), want("cp pod:/etc/passwd /tmp/x", "human human.outside-write")},
	},
	{Name: "helm",
		Hook:    "kube",
		Grant:   BySub,
		Nested:  []string{"plugin", "repo", "registry"},
		Secrets: []string{"get values", "get all", "get manifest"},
		// plugins run with the tool; a package source changes where later
		// installs go (like npm set, git remote add)
		Configures:  []string{"plugin install", "repo add"},
		Uninstalls:  []string{"uninstall", "delete"},
		Version:     true,
		FetchesURLs: true,
		Examples:    []argv.Example{want("uninstall web", "human human.teardown"), want("delete web", "human human.teardown")},
	},
}
