package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/review"
)

const checkUsage = `Usage:
  perm-peer check [--cwd DIR] [--project DIR] [--home DIR] [--policy FILE] [--json] [--explain] -- 'CMD'
  perm-peer check --tool Read --path .env
  perm-peer check --tool WebFetch --url https://example.com/x
  perm-peer check --tool NAME [--kind KIND] [--input JSON]

Runs one call through the gate (SPEC §5) with the user and project policies,
no grants, no judge, and explains it: the decision (allow, ask or deny), the
risk, whether only a person may approve it, what "always" would grant, and
each fact with the floor, rule or class that decided it. --json prints the
permission/check result instead.

"ask" means no rule decides the call: the mode (ask, auto, full, ai; see
docs/POLICY.md) does; a call only a person may approve is never cleared by
auto or the judge. --explain adds where the deciding rule is written and
the commands that change the outcome.

Exit codes: 0 the call was checked (whatever the decision), 2 usage error,
3 the policy could not be loaded.
`

func runCheck(args []string) int {
	fs := newFlags("check")
	cwd := fs.String("cwd", "", "working directory of the call (default: the project)")
	project := fs.String("project", "", "project root (default: the working directory)")
	home := fs.String("home", "", "home directory (default: $HOME)")
	policy := fs.String("policy", "", "user policy file (default: $XDG_CONFIG_HOME/perm-peer/policy.json)")
	asJSON := fs.Bool("json", false, "print the permission/check result as JSON")
	explain := fs.Bool("explain", false, "explain in one screen: what decides, where it is written, how to change it")
	tool := fs.String("tool", "", "tool name (default bash when a command is given)")
	kind := fs.String("kind", "", "ACP tool kind")
	pathArg := fs.String("path", "", "file path for file tools")
	urlArg := fs.String("url", "", "URL for fetch tools")
	input := fs.String("input", "", "raw tool input as JSON")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Print(checkUsage)
			return exitOK
		}
		fmt.Fprintf(os.Stderr, "perm-peer check: %v (see perm-peer check --help)\n", err)
		return exitUsage
	}
	command := strings.Join(fs.Args(), " ")
	call, err := buildCall(*tool, *kind, command, *pathArg, *urlArg, *input)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer check: %v (see perm-peer check --help)\n", err)
		return exitUsage
	}
	root, err := projectRoot(*project)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer check: %v\n", err)
		return exitStartup
	}
	h := *home
	if h == "" {
		h, _ = os.UserHomeDir()
	}
	c := root
	if *cwd != "" {
		if c, err = filepath.Abs(*cwd); err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer check: resolve --cwd: %v\n", err)
			return exitUsage
		}
	}
	pol, err := gate.LoadPolicy(userPolicyPath(*policy), projectPolicyPath(root), root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer check: %v\n", err)
		return exitStartup
	}
	env := gate.Env{Project: root, Cwd: c, Home: h, Policy: pol, Getenv: os.LookupEnv}
	if db, err := dbPath("", root); err == nil {
		env.Protected = []string{db}
	}
	if *explain {
		return explainCall(call, root, c, h, *policy, *asJSON)
	}
	v := gate.Analyze(call, env)
	if *asJSON {
		res := protocol.CheckResult{Decision: v.Decision, Risk: v.Risk, HumanOnly: v.HumanOnly, Reasons: v.Reasons, Facts: v.Facts}
		if res.Reasons == nil {
			res.Reasons = []protocol.Reason{}
		}
		if res.Facts == nil {
			res.Facts = []protocol.Fact{}
		}
		out, _ := json.MarshalIndent(res, "", "  ")
		fmt.Println(string(out))
		return exitOK
	}
	printVerdict(os.Stdout, v, pol.Mode())
	return exitOK
}

func buildCall(tool, kind, command, path, url, input string) (protocol.ToolCall, error) {
	call := protocol.ToolCall{Tool: tool, Kind: protocol.ToolKind(kind)}
	switch {
	case input != "":
		if !json.Valid([]byte(input)) {
			return call, fmt.Errorf("--input is not valid JSON")
		}
		call.RawInput = json.RawMessage(input)
	case command != "":
		if call.Tool == "" {
			call.Tool = "bash"
		}
		call.RawInput, _ = json.Marshal(map[string]string{"command": command})
	case path != "":
		call.RawInput, _ = json.Marshal(map[string]string{"path": path})
	case url != "":
		call.RawInput, _ = json.Marshal(map[string]string{"url": url})
	default:
		return call, fmt.Errorf("give a command after --, or --tool with --path, --url or --input")
	}
	if call.Tool == "" && call.Kind == "" {
		return call, fmt.Errorf("--tool is required with --path, --url or --input")
	}
	return call, nil
}

func printVerdict(w io.Writer, v gate.Verdict, mode protocol.Mode) {
	by := string(v.DecidedBy)
	switch {
	case by == "":
		by = review.OpenWords(v.HumanOnly, mode)
	}
	fmt.Fprintf(w, "decision:  %s\nrisk:      %s\nhumanOnly: %t\ndecidedBy: %s\naction:    %s\n", v.Decision, v.Risk, v.HumanOnly, by, v.Action)
	if v.Always != nil {
		fmt.Fprintf(w, "always:    %s  (covers %s)\n", v.Always.Pattern, v.Always.Covers)
	} else {
		fmt.Fprintln(w, "always:    not offered")
	}
	fmt.Fprintln(w, "facts:")
	for _, f := range v.Facts {
		what, why := review.FactText(f)
		ho := ""
		if f.HumanOnly {
			ho = " human-only"
		}
		fmt.Fprintf(w, "  %-5s %-8s %-7s %s%s\n      %s\n", f.Decision, f.Risk, f.Kind, what, ho, why)
	}
}

// explainCall is check --explain: review.Explain for a call not in the log.
func explainCall(call protocol.ToolCall, root, cwd, home, policyFlag string, asJSON bool) int {
	r, err := review.New(review.Config{UserPolicy: userPolicyPath(policyFlag), Home: home})
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer check: %v\n", err)
		return exitStartup
	}
	p, err := r.ProjectOf(root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer check: %v\n", err)
		return exitStartup
	}
	x, err := r.Explain(p, call, cwd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer check: %v\n", err)
		return exitStartup
	}
	return printExplanation(x, asJSON)
}
