package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The infrastructure, cloud and forge CLIs (Tool, pkg.go).

// terraformGroups are terraform's subcommands that group actions.
var terraformGroups = []string{"state", "workspace", "providers"}

// cloudTools are the infrastructure, cloud and forge CLIs.
var cloudTools = []*Tool{
	{Name: "terraform", Version: true, Hook: "infra", Grant: BySub, Nested: terraformGroups, Examples: []argv.Example{want("destroy", "human human.teardown")}},
	{Name: "tofu", Hook: "infra", Nested: terraformGroups, Examples: []argv.Example{want("plan -out=/home/u/x.plan", "human human.outside-write")}},
	{Name: "pulumi", Hook: "infra", Examples: []argv.Example{want("destroy --yes", "human human.teardown")}},
	{Name: "cdk", Hook: "infra", Examples: []argv.Example{want("destroy", "human human.teardown")}},
	{Name: "cdktf", Hook: "infra", Examples: []argv.Example{want("destroy", "human human.teardown")}},
	{Name: "sst", Hook: "infra", Examples: []argv.Example{want("remove", "human human.teardown")}},
	{Name: "serverless", Hook: "infra", Examples: []argv.Example{want("remove", "human human.teardown")}},
	{Name: "sls", Hook: "infra", Examples: []argv.Example{want("remove --stage prod", "human human.teardown")}},
	{Name: "gh", Version: true, Grant: BySub, AllNested: true, Examples: []argv.Example{want("auth token", "human human.sensitive-read")}},
	{Name: "aws", AllNested: true, Teardowns: []string{"delete-stack"},
		Examples: []argv.Example{want("cloudformation delete-stack --stack-name prod", "human human.teardown")}},
	{Name: "gcloud", AllNested: true, Teardowns: []string{"delete projects"},
		Examples: []argv.Example{want("projects delete my-proj", "human human.teardown")}},
	{Name: "az", AllNested: true},
}
