// Command perm-peer decides, for every tool call an AI coding agent wants to
// make, whether it may run: once, always or reject. Editors launch it as a
// subprocess and speak JSON-RPC 2.0 over stdio; see README.md and
// docs/PROTOCOL.md.
package main

import (
	"fmt"
	"log/slog"
	"os"
)

// Exit codes shared by every subcommand.
const (
	exitOK      = 0
	exitFailed  = 1 // the command ran and found a problem (failed rows, bad chain, ...)
	exitUsage   = 2 // bad flags or arguments
	exitStartup = 3 // could not start: unreadable policy, unopenable DB, ...
)

// subcommands maps a subcommand to its entry point. Each takes the arguments
// after its name and returns the exit code.
var subcommands = map[string]func(args []string) int{
	"serve":       runServe,
	"demo":        runDemo,
	"check":       runCheck,
	"eval":        runEval,
	"audit":       runAudit,
	"grants":      runGrants,
	"rules":       runRules,
	"schemas":     runSchemas,
	"conformance": runConformance,
	"hook":        runHook,
	"setup":       runSetup,
	"acp":         runACP,
	"log":         runLog,
	"why":         runWhy,
	"allow":       runAllow,
	"deny":        runDeny,
	"replay":      runReplay,
	"policy":      runPolicy,
	"doctor":      runDoctor,
	"version":     runVersion,
	"judge":       runJudge,
	"ui":          runUI,
}

const usage = `perm-peer decides whether an AI agent's tool call may run: once, always or reject.

Usage:
  perm-peer [serve] [--framing auto|lsp|ndjson] [--db PATH] [--policy FILE] [--project DIR]
  perm-peer demo                                  play a scripted editor session
  perm-peer check [--cwd DIR] [--json] -- 'CMD'   explain one shell call through the gate
  perm-peer check --tool Read --path .env
  perm-peer eval CORPUS.jsonl [--json]            score a labelled corpus
  perm-peer log [--project DIR] [--since 2h|today|DATE] [--agent A] [--decision D] [--json]
                                                  recent decisions of every project and agent
  perm-peer why AUDIT-ID                          why a call was decided so, and how to change it
  perm-peer allow|deny AUDIT-ID [--user|--session] turn a decision into the narrowest rule
  perm-peer replay --policy NEW.json [--since ..] what a candidate policy would change in the log
  perm-peer policy lint|test [FILE]               check a policy file; run its examples
  perm-peer audit [--session S] [--json] | audit verify | audit compact
  perm-peer grants list | grants revoke ID
  perm-peer rules [--session S]                   the <user_rules> the judge sees (default: latest session)
  perm-peer schemas [--out DIR]                   write the JSON Schemas
  perm-peer conformance -- CMD ARGS...            run the conformance suite against a peer
  perm-peer hook claude-code|codex|gemini|cursor  one host hook call (stdin JSON, stdout answer)
  perm-peer setup HOST [--project DIR|--user] [--dry-run] [--remove]
                                                  install (or remove) the hooks (HOST: claude-code,
                                                  codex, gemini, cursor; zed prints agent_servers)
  perm-peer doctor [--project DIR]                is every installed hook live? is the audit chain ok?
  perm-peer version                               the version and commit of this binary
  perm-peer judge test [--policy FILE]            one real call to the configured judge, explained
  perm-peer judge eval FILE.jsonl [--json]        score the configured judge on a labelled set
  perm-peer acp [--project DIR] [--policy FILE] [--db PATH] -- AGENT [ARGS...]
                                                  guard an ACP agent an editor (Zed) launches
  perm-peer ui [--port N]                         the dashboard in a browser, on 127.0.0.1

Exit codes: 0 ok, 1 the command found a problem, 2 usage error, 3 startup error.
`

func main() {
	sink := newLogSink(os.Stderr)
	slog.SetDefault(slog.New(slog.NewTextHandler(sink, &slog.HandlerOptions{Level: logLevel()})))
	code := run(os.Args[1:])
	sink.flush()
	os.Exit(code)
}

func run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "--help", "help":
			fmt.Print(usage)
			return exitOK
		case "--version":
			return runVersion(nil)
		}
		if cmd, ok := subcommands[args[0]]; ok {
			return cmd(args[1:])
		}
		if args[0] != "" && args[0][0] != '-' {
			fmt.Fprintf(os.Stderr, "perm-peer: unknown command %q (see perm-peer --help)\n", args[0])
			return exitUsage
		}
	}
	return runServe(args)
}

func logLevel() slog.Level {
	if os.Getenv("PERM_PEER_DEBUG") != "" {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}
