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
		Teardowns:   dockerTeardowns,
		Version:     true,
		FetchesURLs: true,
		Examples: []argv.Example{want("ps -a", "allow"), want("compose config", "human human.sensitive-read"), want("image ls", "allow"),
			want("container ls -a", "allow"), want("stats --no-stream", "allow"), want("image rm web", "ask"), want("container rm -f web", "ask"),
			want("volume rm pgdata", "human human.teardown"), want("system prune -af", "human human.teardown"), want("compose down -v", "human human.teardown"),
			want("compose down", "ask")},
	},
	{Name: "podman",
		Cmd:         tool("podman", flags("--debug", "--connection -c --url --log-level --root --runroot", ""), dockerSubs...),
		Hook:        "docker",
		Grant:       BySub,
		Nested:      dockerGrantGroups,
		Teardowns:   dockerTeardowns,
		FetchesURLs: true,
		Examples:    []argv.Example{want("images", "allow"), want("volume prune -f", "human human.teardown")},
	},
	// nerdctl's grant is the exact command (docker's per subcommand)
	{Name: "nerdctl", Hook: "docker", Examples: []argv.Example{want("ps", "allow"), want("inspect web", "ask ask.flag")}},
	// kubectl get pods must not cover kubectl get secrets
	{Name: "kubectl",
		Cmd:        kubectl,
		Hook:       "kube",
		Grant:      BySub,
		AllNested:  true,
		Secrets:    []string{"get secret -o|--output", "get secrets -o|--output", "create token", "config view --raw|--flatten"},
		Configures: []string{"config set-credentials", "config set"},
		Version:    true,
		Uninstalls: []string{"uninstall"},
		Examples: []argv.Example{want("delete ns prod", "human human.teardown"), want("get pods -n web -o wide", "allow"),
			want("get secret db -o yaml", "human human.sensitive-read"), want("logs -f web-1 -c app --tail=100", "allow"), want("describe pod web-1", "ask"),
			want("--kubeconfig ./k.yaml get pods", "ask")},
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

// KubeOutput is what kubectl's -o/--output sets (argv.Flag.Sets): its
// value is the output format, read by the gate's kube hook: a table
// (wide) or the names only (name) print no object's fields; yaml, json,
// jsonpath and templates print them all, a Secret's data and a pod's
// environment included.
const KubeOutput argv.Sets = 1

// kubeGet are the flags of kubectl's listing queries (get, top,
// api-resources): which objects, where, and how they are printed.
var kubeGet = with(flags("-A --all-namespaces -w --watch --watch-only --show-labels --show-kind --no-headers --ignore-not-found --namespaced --containers",
	"-n --namespace -l --selector --field-selector --sort-by -L --label-columns --chunk-size --context --request-timeout --api-group --verbs", ""),
	argv.Flag{Names: "-o --output", Arity: argv.Value, Sets: KubeOutput})

// kubectl declares its queries: they print the cluster's objects as a
// table, a pod's logs, the current context, the API's resources. Its
// other commands change the cluster or print objects whole (describe: a
// pod's environment) and ask; --kubeconfig, --server and --token (another
// cluster, whose configuration may run a credential program) are not
// declared and ask.
var kubectl = tool("kubectl", flags("", "", ""),
	sub("get", kubeGet, ex("pods -n web -o wide", ""), ex("deploy -A", "")),
	sub("logs", flags("-f --follow -p --previous --timestamps --all-containers --prefix --ignore-errors",
		"-c --container -n --namespace -l --selector --tail --since --since-time --limit-bytes --max-log-requests --context --pod-running-timeout", ""),
		ex("-f web-1 -c app --tail=100", "")),
	tool("top", flags("", "", ""), sub("pod", kubeGet), sub("pods", kubeGet), sub("node", kubeGet), sub("nodes", kubeGet)),
	sub("api-resources", kubeGet),
	sub("api-versions", flags("", "--context", "")),
	sub("explain", flags("--recursive", "--api-version --context --output", ""), ex("pod.spec --recursive", "")),
	sub("version", flags("--client", "--context", "")),
	sub("cluster-info", flags("", "--context", "")),
	tool("config", flags("", "", ""), sub("current-context", flags("", "", "")),
		sub("get-contexts", with(flags("--no-headers", "", ""), argv.Flag{Names: "-o --output", Arity: argv.Value, Sets: KubeOutput}))),
)

// dockerTeardowns delete what containers keep: volumes, and everything
// stopped or unused at once (SPEC §5.4's teardown).
var dockerTeardowns = []string{"volume rm", "volume prune", "system prune", "container prune", "compose down -v", "compose down --volumes"}
