package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/gate/internal/scripts"
)

// The hooks of the infrastructure and cloud CLIs (cmds/cloud.go).

// infra reads terraform and the other infrastructure-as-code CLIs:
// destroy and remove tear the infrastructure down; -out, -state-out and
// -backup write where they say (terraform plan -out=FILE).
func (c *plainCall) infra() {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	if hasWord(args, "destroy") || hasWord(args, "remove") || hasFlag(args, "-destroy", "--destroy") {
		f.human = reason("human.teardown", lb+" destroys infrastructure")
	}
	for _, w := range flagValues(args, "-out", "-state-out", "-backup") {
		a.writeWord(w, sc, idx)
	}
	c.infraCheck()
}

// infraCheck finds terraform fmt -check known-safe: it only reports (the
// table's flag that sets cmds.InfraCheck, with no value: -check=false
// rewrites the files as fmt alone does), and reads the files and
// directories it is given, whose diffs -diff prints.
func (c *plainCall) infraCheck() {
	q := cmds.Lookup(c.lb)
	if len(c.args) == 0 || q == nil {
		return
	}
	if q = q.Sub(c.args[0].val); q == nil {
		return
	}
	rest := c.args[1:]
	inv := parseArgs(q, rest)
	if !slices.ContainsFunc(inv.Uses, func(u argv.Use) bool { return u.Flag.Sets == cmds.InfraCheck && u.ValAt < 0 }) {
		return
	}
	for _, i := range inv.Operands {
		c.a.readWord(rest[i], c.sc, c.idx, false)
	}
	c.safe(c.lb + " " + c.args[0].val + " -check only reads")
}

// tearsDown says one of a tool's Teardowns (cmds.Tool) is among its
// words: each of its words, anywhere (aws cloudformation delete-stack,
// gcloud projects delete).
func tearsDown(teardowns []string, args []word) bool {
	return slices.ContainsFunc(teardowns, func(t string) bool {
		return !slices.ContainsFunc(strings.Fields(t), func(w string) bool { return !hasWord(args, w) })
	})
}

// forge finds gh's queries known-safe (the table's gh subcommands: pr
// view, run list …): they only read, from github.com. A repository,
// URL or host elsewhere sends the call's words to that host, as curl
// would, and a jq filter that reads the environment prints it; those
// stay open, as does any form the table does not declare.
func (c *plainCall) forge() {
	args := c.args
	if len(args) < 2 || slices.ContainsFunc(args, func(w word) bool { return w.dyn }) {
		return // a word known only at run time may name another host
	}
	q := cmds.Lookup(c.lb).Sub(args[0].val).Sub(args[1].val)
	if q == nil {
		return
	}
	rest := args[2:]
	inv := parseArgs(q, rest)
	for _, u := range inv.Uses {
		v, _ := valueWord(rest, u)
		switch u.Flag.Sets {
		case cmds.ForgeRepo:
			if !githubRepo(v.val) {
				return
			}
		case cmds.ForgeFilter:
			if unknown, env := scripts.JqUnknownCalls(v.val); env || len(unknown) > 0 {
				if env || slices.ContainsFunc(unknown, func(n string) bool { return n == "env" }) {
					c.f.human = reason("human.env-dump", c.lb+" --jq filter reads the environment")
				}
				return
			}
		}
	}
	for _, i := range inv.Operands {
		if !githubOperand(rest[i].val) {
			return
		}
	}
	c.safe(c.lb + " " + args[0].val + " " + args[1].val + " only reads")
}

// githubRepo reports a repository gh finds on github.com: OWNER/REPO,
// or github.com/OWNER/REPO.
func githubRepo(v string) bool {
	v = strings.TrimPrefix(v, "github.com/")
	owner, repo, ok := strings.Cut(v, "/")
	return ok && owner != "" && repo != "" && !strings.ContainsAny(owner, ".:") && !strings.ContainsAny(repo, "/:")
}

// githubOperand reports an operand of a gh query that names nothing on
// another host: a number, a branch, a tag, a file, or a github.com URL.
// HOST/OWNER/REPO (gh repo view; a host needs no dot: localhost,
// intranet) and a URL elsewhere are another host, so two slashes are.
func githubOperand(v string) bool {
	if strings.Contains(v, ":") {
		return strings.HasPrefix(v, "https://github.com/") && !strings.Contains(strings.TrimPrefix(v, "https://"), ":") &&
			!strings.Contains(v, "@")
	}
	return strings.Count(v, "/") < 2
}
