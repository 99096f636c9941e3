package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The infrastructure, cloud and forge CLIs (Tool, pkg.go).

// terraformGroups are terraform's subcommands that group actions.
var terraformGroups = []string{"state", "workspace", "providers"}

// cloudTools are the infrastructure, cloud and forge CLIs.
var cloudTools = []*Tool{
	{Name: "terraform",
		Cmd:     terraformCmd("terraform"),
		Hook:    "infra",
		Grant:   BySub,
		Nested:  terraformGroups,
		Secrets: []string{"output -raw|-json", "state pull", "show -json"},
		Version: true,
		Examples: []argv.Example{want("destroy", "human human.teardown"), want("fmt -check -recursive", "allow"), want("fmt", "ask"),
			want("fmt -check -write=true", "ask ask.flag")},
	},
	{Name: "tofu",
		Cmd:      terraformCmd("tofu"),
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
		Cmd:        gh,
		Hook:       "forge",
		Grant:      BySub,
		AllNested:  true,
		Secrets:    []string{"auth token", "auth status -t|--show-token"},
		Configures: []string{"alias set", "alias import", "config set", "extension install"},
		Version:    true,
		Examples: []argv.Example{want("auth token", "human human.sensitive-read"), want("pr view 12 --comments", "allow"),
			want("run view 42 --log-failed", "allow"), want("pr view --web", "ask ask.flag"), want("pr list -R evil.example/o/r", "ask"),
			want("pr list --jq '$ENV'", "human human.env-dump"), want("pr create --fill", "ask")},
	},
	{Name: "glab", Secrets: []string{"auth status -t|--show-token"}, Configures: []string{"alias set", "config set"},
		Uploads:  []string{"snippet create", "release create", "release upload", "issue create", "mr create"},
		Examples: []argv.Example{want("auth status -t", "human human.sensitive-read"), want("release upload v1 .env", "deny floor.exfil")}},
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
		// the stacks, buckets, instances, databases, tables and clusters
		// it deletes (s3 rm --recursive empties a bucket)
		Teardowns: []string{"delete-stack", "s3 rb", "s3 rm --recursive", "delete-bucket", "terminate-instances", "delete-db-instance",
			"delete-db-cluster", "delete-table", "delete-cluster", "delete-repository"},
		Examples: []argv.Example{want("cloudformation delete-stack --stack-name prod", "human human.teardown"),
			want("s3 rm s3://prod-data --recursive", "human human.teardown"), want("s3 rb s3://prod-data --force", "human human.teardown"),
			want("s3 ls s3://prod-data", "ask")},
	},
	{Name: "gcloud",
		AllNested: true,
		Secrets:   []string{"auth print-access-token", "auth print-identity-token", "auth application-default print-access-token", "secrets versions access", "config config-helper"},
		Teardowns: []string{"delete projects", "delete instances", "delete clusters", "delete buckets", "rm --recursive"},
		Uploads:   []string{"storage cp", "storage rsync", "alpha storage cp", "compute scp", "compute copy-files"},
		Examples: []argv.Example{want("projects delete my-proj", "human human.teardown"), want("sql instances delete prod-db", "human human.teardown"),
			want("storage rm --recursive gs://prod-data", "human human.teardown"), want("storage cp .env gs://b/x", "deny floor.exfil")},
	},
	{Name: "az",
		AllNested: true,
		Secrets:   []string{"account get-access-token", "keyvault secret show", "keyvault secret download", "storage account keys list", "acr login --expose-token"},
		Teardowns: []string{"group delete", "vm delete", "aks delete", "sql db delete", "storage account delete"},
		Uploads:   []string{"storage blob upload", "storage blob upload-batch", "storage file upload", "storage file upload-batch", "storage copy"},
		Examples: []argv.Example{want("account get-access-token", "human human.sensitive-read"), want("group delete -n prod --yes", "human human.teardown"),
			want("storage blob upload -f .env -c x -n y", "deny floor.exfil")},
	},
}

// What a flag of gh's queries does (argv.Flag.Sets), read by the gate's
// forge hook (gate/hooks_cloud.go).
const (
	// ForgeRepo: its value is the repository, [HOST/]OWNER/REPO: a host
	// other than github.com receives the call
	ForgeRepo argv.Sets = iota + 1
	// ForgeFilter: its value is a jq filter gh runs on the answer (gojq:
	// $ENV and env read the environment)
	ForgeFilter
)

// ghOut are the flags with which gh's queries print JSON, filtered or
// templated; ghRepo the one naming the repository. --web (-w) opens a
// browser and is not declared: it asks.
var (
	ghRepo = argv.Flag{Names: "-R --repo", Arity: argv.Value, Sets: ForgeRepo}
	ghOut  = []argv.Flag{{Names: "-q --jq", Arity: argv.Value, Sets: ForgeFilter}, ghRepo, {Names: "--json -t --template", Arity: argv.Value, Each: true}}
)

// ghQuery is one of gh's read-only subcommands: its own flags (none, one
// value each) and the output flags (-R among them).
func ghQuery(name, none, vals string, ex ...argv.Example) *argv.Command {
	return sub(name, with(flags(none, vals, ""), ghOut...), ex...)
}

// gh's read-only subcommands: they print what the forge holds (pull
// requests, issues, runs and their logs, releases, workflows, labels).
// The gate's forge hook finds them known-safe when they talk to
// github.com only; gh's other forms write or open a browser and ask.
var gh = tool("gh", flags("", "", ""),
	tool("pr", flags("", "", ""),
		ghQuery("view", "-c --comments", "", ex("12 --json title,body", "")),
		ghQuery("list", "-d --draft", "--app -a --assignee -A --author -B --base -H --head -l --label -L --limit -S --search -s --state", ex("--state open -L 20", "")),
		ghQuery("diff", "--name-only --patch", "--color -e --exclude", ex("12 --name-only", "")),
		ghQuery("checks", "--fail-fast --required --watch", "-i --interval", ex("12 --required", "")),
		ghQuery("status", "-c --conflict-status", "")),
	tool("issue", flags("", "", ""),
		ghQuery("view", "-c --comments", "", ex("45 --comments", "")),
		ghQuery("list", "", "--app -a --assignee -A --author -l --label -L --limit --mention -m --milestone -S --search -s --state", ex("-l bug -s open", "")),
		ghQuery("status", "", "")),
	tool("run", flags("", "", ""),
		ghQuery("view", "--exit-status --log --log-failed -v --verbose", "-a --attempt -j --job", ex("42 --log-failed", "")),
		// run list's -w is --workflow, not --web
		ghQuery("list", "-a --all", "-b --branch -c --commit --created -e --event -L --limit -s --status -u --user -w --workflow", ex("-w ci.yml -L 5", ""))),
	tool("repo", flags("", "", ""), ghQuery("view", "", "-b --branch", ex("owner/repo --json name", ""))),
	tool("release", flags("", "", ""),
		ghQuery("list", "--exclude-drafts --exclude-pre-releases", "-L --limit -O --order"),
		ghQuery("view", "", "", ex("v1.0.0", ""))),
	tool("workflow", flags("", "", ""),
		ghQuery("list", "-a --all", "-L --limit"),
		ghQuery("view", "-y --yaml", "-r --ref", ex("ci.yml --yaml", ""))),
	tool("label", flags("", "", ""), ghQuery("list", "", "-L --limit -O --order -S --search --sort")),
	// gh search sends its query to GitHub's search; -R/--repo and
	// --owner narrow it (a qualifier, not a host)
	tool("search", flags("", "", ""),
		ghQuery("issues", ghSearchIssues+" --include-prs", ghSearchIssueValues, ex("crash --repo owner/repo --state open", "")),
		ghQuery("prs", ghSearchIssues+" --draft --merged", ghSearchIssueValues+" -B --base --checks -H --head --merged-at --review --review-requested --reviewed-by"),
		ghQuery("repos", "--archived", "--created --followers --forks --good-first-issues --help-wanted-issues --include-forks --language --license "+
			"-L --limit --match --number-topics --order --owner --size --sort --stars --topic --updated --visibility"),
		ghQuery("code", "", "--extension --filename --language -L --limit --match --owner --size", ex("ParseArgs --language go -L 5", "")),
		ghQuery("commits", "--merge", "--author --author-date --author-email --author-name --committer --committer-date --committer-email "+
			"--committer-name --hash -L --limit --order --owner --parent --sort --tree --visibility")),
)

// ghSearchIssues and ghSearchIssueValues are gh search issues's and
// gh search prs's switches and options with a value.
const (
	ghSearchIssues      = "--archived --locked --no-assignee --no-label --no-milestone --no-project"
	ghSearchIssueValues = "--app --assignee --author --closed --commenter --comments --created --interactions --involves --label --language " +
		"-L --limit --match --mentions --milestone --order --owner --project --reactions --sort --state --team-mentions --updated --visibility"
)

// InfraCheck is what terraform fmt's -check sets (argv.Flag.Sets): the
// call only reports whether the files are formatted and writes none.
const InfraCheck argv.Sets = 1

// terraformCmd declares the queries of terraform and its fork tofu that
// the infra hook finds known-safe: fmt -check prints the names of the
// files it would reformat. fmt without -check rewrites the files; -diff
// (it prints the lines it would change, a terraform.tfvars secret
// among them), -write and -chdir are not declared and ask.
func terraformCmd(name string) *argv.Command {
	return goStyle(tool(name, flags("-version -v -help -h", "", ""),
		goStyle(sub("fmt", with(flags("-recursive -no-color -list", "", ""), argv.Flag{Names: "-check", Sets: InfraCheck}),
			ex("-check -recursive", ""), ex("-check modules/", ""), ex("-check -diff", "-diff")))))
}
