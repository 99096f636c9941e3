package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The coding agents and the editors that install extensions or MCP
// servers: gate/subcmds.go's configWriters name the forms that change
// what later runs (claude mcp add, code --install-extension), human-only
// persistence; no hook reads them, and none is known-safe but its help.

// agentCLI is a coding agent's command line under name: -p runs a prompt
// (more agent calls), mcp and extensions manage what it loads.
func agentCLI(name string, f []argv.Flag, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Flags: f, Abbrev: true, StopAtOperand: true, Examples: ex}
}

// editorCLI is a VS Code fork's command line under name.
func editorCLI(name string) *argv.Command {
	return &argv.Command{Name: name, Abbrev: true, Examples: []argv.Example{want("--install-extension ms-python.python", "human human.persistence-write"),
		want("--version", "allow"), want("-g main.go:10", "ask")},
		Flags: flags("-n --new-window -r --reuse-window -w --wait -d --diff -m --merge --list-extensions --show-versions --disable-extensions -v",
			"-g --goto --locale --user-data-dir --profile --extensions-dir --install-extension --uninstall-extension --add-mcp --category", "")}
}

var agents = []*argv.Command{
	agentCLI("claude", flags("-c --continue -r --resume --verbose --dangerously-skip-permissions -d --debug -v",
		"-p --print --output-format --input-format --model --permission-mode --allowedTools --allowed-tools --disallowedTools "+
			"--disallowed-tools --add-dir --mcp-config --settings --append-system-prompt --session-id", ""),
		want("mcp add x -- npx y", "human human.persistence-write"), want("--version", "allow"), want("-p hi", "ask")),
	agentCLI("codex", flags("--full-auto --dangerously-bypass-approvals-and-sandbox --oss --search", "-m --model -c --config -p --profile "+
		"-s --sandbox -a --ask-for-approval -C --cd -i --image", ""),
		want("mcp add x -- npx y", "human human.persistence-write"), want("exec hi", "ask")),
	agentCLI("gemini", flags("-y --yolo -s --sandbox -d --debug -a --all-files --checkpointing", "-p --prompt -m --model "+
		"--approval-mode --include-directories -e --extensions", ""),
		want("extensions install x", "human human.persistence-write"), want("-p hi", "ask")),
	editorCLI("cursor"), editorCLI("codium"),
}
