package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The infrastructure, cloud and forge CLIs (Tool, pkg.go).

// terraformGroups are terraform's subcommands that group actions.
var terraformGroups = []string{"state", "workspace", "providers"}

// cloudTools are the infrastructure, cloud and forge CLIs.
var cloudTools = []*Tool{
	{Name: "terraform", Grant: BySub, Nested: terraformGroups, Examples: []argv.Example{want("destroy", "human human.teardown")}},
	{Name: "tofu", Nested: terraformGroups},
	{Name: "gh", Grant: BySub, AllNested: true, Examples: []argv.Example{want("auth token", "human human.sensitive-read")}},
	{Name: "aws", AllNested: true},
	{Name: "gcloud", AllNested: true},
	{Name: "az", AllNested: true},
}
