package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The infrastructure, cloud and forge CLIs (Tool, pkg.go).

// terraformGroups are terraform's subcommands that group actions.
var terraformGroups = []string{"state", "workspace", "providers"}

// cloudTools are the infrastructure, cloud and forge CLIs.
var cloudTools = []*Tool{
	{Name: "terraform",
		Hook:     "infra",
		Grant:    BySub,
		Nested:   terraformGroups,
		Secrets:  []string{"output -raw|-json", "state pull", "show -json"},
		Version:  true,
		Examples: []argv.Example{want("destroy", "human human.teardown")},
	},
	{Name: "tofu",
		Hook:     "infra",
		Nested:   terraformGroups,
		Secrets:  []string{"output -raw|-json", "state pull", "show -json"},
		Examples: []argv.Example{want("plan -out=/home/u/x.plan", "human human.outside-write")},
	},
	{Name: "pulumi",
		Hook:     "infra",
		Secrets:  []string{"--show-secrets"},
		Examples: []argv.Example{want("destroy --yes", "human human.teardown")},
	},
	{Name: "cdk", Hook: "infra", Examples: []argv.Example{want("destroy", "human human.teardown")}},
	{Name: "cdktf", Hook: "infra", Examples: []argv.Example{want("destroy", "human human.teardown")}},
	{Name: "sst", Hook: "infra", Examples: []argv.Example{want("remove", "human human.teardown")}},
	{Name: "serverless", Hook: "infra", Examples: []argv.Example{want("remove", "human human.teardown")}},
	{Name: "sls", Hook: "infra", Examples: []argv.Example{want("remove --stage prod", "human human.teardown")}},
	{Name: "gh",
		Grant:      BySub,
		AllNested:  true,
		Secrets:    []string{"auth token", "auth status -t|--show-token"},
		Configures: []string{"alias set", "alias import", "config set", "extension install"},
		Version:    true,
		Examples:   []argv.Example{want("auth token", "human human.sensitive-read")},
	},
	{Name: "glab", Secrets: []string{"auth status -t|--show-token"}, Configures: []string{"alias set", "config set"}, Examples: []argv.Example{want("auth status -t", "human human.sensitive-read")}},
	{Name: "aws",
		AllNested: true,
		// configure get prints any key of ~/.aws/config or credentials; the
		// settings named here are not secrets (aws configure get region)
		Secrets: []string{"configure get !region|output|sso_region|sso_start_url|sso_account_id|sso_role_name|sso_session|role_arn|" +
			"source_profile|cli_pager|max_attempts|retry_mode|endpoint_url|ca_bundle|duration_seconds|mfa_serial|role_session_name",
			"configure export-credentials", "ecr get-login-password", "ecr get-authorization-token",
			"sts get-session-token", "sts assume-role", "sts assume-role-with-web-identity", "sts assume-role-with-saml",
			"secretsmanager get-secret-value", "ssm get-parameter --with-decryption", "ssm get-parameters --with-decryption",
			"ssm get-parameters-by-path --with-decryption", "codeartifact get-authorization-token", "rds generate-db-auth-token",
			"iam create-access-key"},
		Configures: []string{"configure set"},
		Teardowns:  []string{"delete-stack"},
		Examples:   []argv.Example{want("cloudformation delete-stack --stack-name prod", "human human.teardown")},
	},
	{Name: "gcloud",
		AllNested: true,
		Secrets:   []string{"auth print-access-token", "auth print-identity-token", "auth application-default print-access-token", "secrets versions access", "config config-helper"},
		Teardowns: []string{"delete projects"},
		Examples:  []argv.Example{want("projects delete my-proj", "human human.teardown")},
	},
	{Name: "az",
		AllNested: true,
		Secrets:   []string{"account get-access-token", "keyvault secret show", "keyvault secret download", "storage account keys list", "acr login --expose-token"},
		Examples:  []argv.Example{want("account get-access-token", "human human.sensitive-read")},
	},
}
