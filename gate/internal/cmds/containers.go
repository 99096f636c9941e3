package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The container and cluster CLIs (Tool, pkg.go).

// dockerGrantGroups are the docker subcommands a grant names with their
// action (help.go's dockerGroups: those whose help words follow it).
var dockerGrantGroups = []string{"compose", "container", "image", "volume", "network", "system", "context", "buildx"}

// containerTools are the container and cluster CLIs.
var containerTools = []*Tool{
	{Name: "docker", Grant: BySub, Nested: dockerGrantGroups, Examples: []argv.Example{want("ps -a", "allow"), want("compose config", "human human.sensitive-read")}},
	{Name: "podman", Grant: BySub, Nested: dockerGrantGroups, Examples: []argv.Example{want("images", "allow")}},
	// kubectl get pods must not cover kubectl get secrets
	{Name: "kubectl", Grant: BySub, AllNested: true, Examples: []argv.Example{want("delete ns prod", "human human.teardown")}},
	// oc's and the cloud CLIs' groups are declared, but their grant is the
	// exact command (the gate never granted oc get pods *)
	{Name: "oc", AllNested: true},
	{Name: "helm", Grant: BySub, Nested: []string{"plugin", "repo", "registry"}, Examples: []argv.Example{want("uninstall web", "human human.teardown")}},
}
