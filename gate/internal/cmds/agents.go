package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The coding agents and the editors that install extensions or MCP
// servers: their entries' Configures name the forms that change what
// later runs (claude mcp add, code --install-extension), human-only
// persistence, and Unguarded those that run an agent with its checks off;
// no hook reads them, and none is known-safe but its help.

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

// agentTools are the coding agents, with the forms that run one
// unguarded (Unguarded) or change what it loads (Configures), and the
// VS Code forks (code's flags undeclared, a pager's: editors.go's opener).
var agentTools = []*Tool{
	{Name: "claude",
		Cmd: agentCLI("claude", flags("-c --continue -r --resume --verbose --dangerously-skip-permissions -d --debug -v",
			"-p --print --output-format --input-format --model --permission-mode --allowedTools --allowed-tools --disallowedTools "+
				"--disallowed-tools --add-dir --mcp-config --settings --append-system-prompt --session-id", ""),
			want("mcp add x -- npx y", "human human.persistence-write"), want("--version", "allow"), want("-p hi", "ask")),
		Configures: []string{"mcp add", "mcp add-json", "mcp add-from-claude-desktop"},
		// --settings may load hooks or permissions of its own
		Unguarded: []string{"--dangerously-skip-permissions|--allow-dangerously-skip-permissions|--permission-mode|--settings"},
		Examples:  []argv.Example{want("--dangerously-skip-permissions -p hi", "human human.agent-unguarded")}},
	{Name: "codex",
		Cmd: agentCLI("codex", flags("--full-auto --dangerously-bypass-approvals-and-sandbox --oss --search", "-m --model -c --config -p --profile "+
			"-s --sandbox -a --ask-for-approval -C --cd -i --image", ""),
			want("mcp add x -- npx y", "human human.persistence-write"), want("exec hi", "ask")),
		Configures: []string{"mcp add"},
		Unguarded:  []string{"--dangerously-bypass-approvals-and-sandbox|--yolo|--full-auto|-a|--ask-for-approval|-s|--sandbox"},
		Examples:   []argv.Example{want("--yolo exec hi", "human human.agent-unguarded")}},
	{Name: "gemini",
		Cmd: agentCLI("gemini", flags("-y --yolo -s --sandbox -d --debug -a --all-files --checkpointing", "-p --prompt -m --model "+
			"--approval-mode --include-directories -e --extensions", ""),
			want("extensions install x", "human human.persistence-write"), want("-p hi", "ask")),
		Configures: []string{"mcp add", "extensions install"},
		Unguarded:  []string{"--yolo|-y|--approval-mode"},
		Examples:   []argv.Example{want("-y -p hi", "human human.agent-unguarded")}},
	{Name: "qwen", Unguarded: []string{"--yolo|-y|--approval-mode"},
		Examples: []argv.Example{want("--yolo", "human human.agent-unguarded"), want("-p hi", "ask")}},
	{Name: "cursor-agent", Unguarded: []string{"--force|-f"},
		Examples: []argv.Example{want("-f hi", "human human.agent-unguarded"), want("hi", "ask")}},
	{Name: "amp", Unguarded: []string{"--dangerously-allow-all"},
		Examples: []argv.Example{want("--dangerously-allow-all", "human human.agent-unguarded"), want("", "ask")}},
	{Name: "opencode", Unguarded: []string{"--dangerously-skip-permissions"},
		Examples: []argv.Example{want("--dangerously-skip-permissions", "human human.agent-unguarded"), want("", "ask")}},
	{Name: "aider", Unguarded: []string{"--yes-always"},
		Examples: []argv.Example{want("--yes-always", "human human.agent-unguarded"), want("", "ask")}},
	editorTool("cursor", editorCLI("cursor")), editorTool("codium", editorCLI("codium")), editorTool("code", opener("code", ex("-g main.go:10", ""))),
}

// editorTool is a VS Code fork's entry under name, its flags cmd.
func editorTool(name string, cmd *argv.Command) *Tool {
	return &Tool{Name: name, Cmd: cmd, Configures: []string{"--install-extension|--add-mcp"},
		Examples: []argv.Example{want("--add-mcp x", "human human.persistence-write")}}
}
