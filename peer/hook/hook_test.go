package hook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// TestParseRecordedClaudeInputs reads what Claude Code 2.1.332 really
// sent its hooks (recorded from a real run).
func TestParseRecordedClaudeInputs(t *testing.T) {
	f, err := os.Open("testdata/claude-code-2.1.332-hook-inputs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	stages := map[Stage]int{}
	for sc.Scan() {
		ev, err := claude{}.parse(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		stages[ev.Stage]++
		if ev.SessionID != "67029de3-1f33-41e9-8a42-77588aaf90bd" || ev.Cwd != "/tmp/ccproj-8O0vV2" || !strings.HasSuffix(ev.Transcript, ".jsonl") {
			t.Fatalf("common fields: %+v", ev)
		}
		switch ev.Stage {
		case StagePrompt:
			if ev.Prompt != "do it" {
				t.Fatalf("prompt %q", ev.Prompt)
			}
		case StagePreTool:
			if ev.Call.ToolCallID == "" || ev.Call.Tool == "" || ev.Call.Kind == "" {
				t.Fatalf("PreToolUse call: %+v", ev.Call)
			}
		case StagePermission:
			if ev.Call.ToolCallID != "" || ev.Call.Tool == "" {
				t.Fatalf("PermissionRequest call: %+v", ev.Call)
			}
		}
	}
	if stages[StagePrompt] == 0 || stages[StagePreTool] == 0 || stages[StagePermission] == 0 {
		t.Fatalf("stages seen: %v", stages)
	}
}

func TestToolMapping(t *testing.T) {
	cases := []struct {
		name, tool string
		kind       protocol.ToolKind
		title      string
	}{
		{"Bash", "Bash", protocol.KindExecute, "list"},
		{"Task", "think", protocol.KindThink, "Task: list"},
		{"mcp__db__query", "mcp__db__query", "", "list"},
		{"Frobnicate", "Frobnicate", "", "list"},
	}
	for _, c := range cases {
		got := toolCall(claudeTools, "id", c.name, json.RawMessage(`{"description":"list","command":"ls"}`))
		if got.Tool != c.tool || got.Kind != c.kind || got.Title != c.title || got.ToolCallID != "id" {
			t.Errorf("%s: %+v, want tool %s kind %q title %q", c.name, got, c.tool, c.kind, c.title)
		}
	}
}

func TestProjectOf(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, _ := ProjectOf(deep); got != deep {
		t.Fatalf("no .git: %s, want the cwd", got)
	}
	// a worktree's .git is a file
	if err := os.WriteFile(filepath.Join(root, "a", ".git"), []byte("gitdir: x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := ProjectOf(deep + "/"); got != filepath.Join(root, "a") {
		t.Fatalf("got %s, want the directory holding .git", got)
	}
	if _, err := ProjectOf("rel/dir"); err == nil {
		t.Fatal("a relative cwd was accepted")
	}
}

func TestTranscriptResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	lines := []string{
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a"}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"file1\nfile2"}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b","is_error":true,"content":[{"type":"text","text":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse make instead"}]}]}}`,
		`{"type":"user","toolDenialKind":"user-rejected","userFeedback":"not on friday","message":{"content":[{"type":"tool_result","tool_use_id":"c","is_error":true,"content":"The user doesn't want to proceed with this tool use."}]}}`,
		`{"type":"user","toolDenialKind":"permission-rule","message":{"content":[{"type":"tool_result","tool_use_id":"d","is_error":true,"content":"Claude requested permissions to use Bash, but you haven't granted it yet."}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"e","is_error":true,"content":"exit code 1"}]}}`,
		`not json at all`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"zzz","content":"not asked about"}]}}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var pending []store.PendingAsk
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		pending = append(pending, store.PendingAsk{ID: id})
	}
	got, err := transcriptResults(path, pending)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]toolResult{
		"a": {kind: resultRan},
		"b": {kind: resultUserRejected, note: "use make instead"},
		"c": {kind: resultUserRejected, note: "not on friday"},
		"d": {kind: resultRefused},
		"e": {kind: resultRan}, // the tool's own error: it ran
	}
	if len(got) != len(want) {
		t.Fatalf("results %v, want %v", got, want)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %+v, want %+v", id, got[id], w)
		}
	}
}

// FuzzParse: no input makes a host's parser panic or accept an event it
// cannot decide on, and no answer or failure ever exits 1 (the code these
// hosts read as "run the tool").
func FuzzParse(f *testing.F) {
	if raw, err := os.ReadFile("testdata/claude-code-2.1.332-hook-inputs.jsonl"); err == nil {
		for _, l := range bytes.Split(raw, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"hook_event_name":"beforeShellExecution","conversation_id":"c","workspace_roots":["/w"],"command":"ls"}`))
	f.Add([]byte(`{"session_id":"g","cwd":"/w","hook_event_name":"BeforeTool","tool_name":"mcp_x_y","tool_input":{},"mcp_context":{"server_name":"x","tool_name":"y"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for name, h := range Hosts {
			ev, err := h.parse(raw)
			if rep := h.fail(ev, "x"); rep.Exit != 0 && rep.Exit != 2 {
				t.Fatalf("%s: failure exits %d", name, rep.Exit)
			}
			if err != nil {
				continue
			}
			if ev.Stage == stageUnknown || ev.SessionID == "" || !filepath.IsAbs(ev.Cwd) {
				t.Fatalf("%s accepted %+v", name, ev)
			}
			if ev.Stage != StagePrompt {
				var in map[string]any
				if ev.Call.Tool == "" || json.Unmarshal(ev.Call.RawInput, &in) != nil || in == nil {
					t.Fatalf("%s: tool call %+v", name, ev.Call)
				}
			}
			for _, v := range []Verdict{NoVerdict, Allow, Deny, Ask} {
				rep := h.answer(ev, Outcome{Verdict: v, Reason: "r"})
				if rep.Exit != 0 || len(rep.Stdout) > 0 && !json.Valid(rep.Stdout) {
					t.Fatalf("%s answer %v: %+v", name, v, rep)
				}
			}
		}
	})
}
