package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// zedAgents are the ACP agents `setup zed` shows behind the proxy.
var zedAgents = []struct {
	name string
	argv []string
}{
	{"Claude Code (perm-peer)", []string{"claude-agent-acp"}},
	{"Codex (perm-peer)", []string{"codex-acp"}},
	{"Gemini CLI (perm-peer)", []string{"gemini", "--acp"}},
	{"OpenCode (perm-peer)", []string{"opencode", "acp"}},
}

type zedServer struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// printZed prints the agent_servers entries for Zed's settings.json: Zed
// launches perm-peer's ACP proxy, which launches the agent (SPEC §10.1).
func printZed(w io.Writer, exe string) int {
	servers := map[string]zedServer{} // encoding/json writes the names sorted, as listed
	for _, a := range zedAgents {
		servers[a.name] = zedServer{Type: "custom", Command: exe, Args: append([]string{"acp", "--"}, a.argv...)}
	}
	out, _ := json.MarshalIndent(map[string]any{"agent_servers": servers}, "", "  ")
	fmt.Fprintln(w, "// Add to Zed's settings.json (~/.config/zed/settings.json), keeping the agents you use:")
	fmt.Fprintln(w, string(out))
	return exitOK
}
