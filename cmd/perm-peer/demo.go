package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/perm-peer/perm-peer/protocol"
)

// runDemo plays an editor: it launches this binary as a peer on a temporary
// project and DB with the embedded defaults, and prints the session.
func runDemo(args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(os.Stderr, "usage: perm-peer demo")
		return exitUsage
	}
	if err := demo(os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer demo: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// demoUser is the scripted human: it answers every question once, with a note.
const demoNote = "lint is fine to run; approve all lint runs in this repo"

func demo(out io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own binary: %w", err)
	}
	tmp, err := os.MkdirTemp("", "perm-peer-demo-")
	if err != nil {
		return fmt.Errorf("make temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte("# demo\n"), 0o644); err != nil {
		return err
	}
	db := filepath.Join(tmp, "audit.db")

	cmd := exec.Command(self, "serve", "--project", project, "--db", db, "--framing", "lsp",
		"--policy", filepath.Join(tmp, "no-user-policy.json"))
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start peer: %w", err)
	}
	fmt.Fprintf(out, "perm-peer demo: an editor session against `perm-peer serve` (Content-Length framing)\n")
	fmt.Fprintf(out, "project %s, fresh audit DB, embedded default policy\n\n", project)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	asker := jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		if req.Method != protocol.MethodPermissionAsk {
			return nil, &jsonrpc2.Error{Code: protocol.CodeMethodNotFound, Message: req.Method}
		}
		var p protocol.AskParams
		if err := json.Unmarshal(*req.Params, &p); err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "  peer → editor   permission/ask  risk=%s options=%v\n                  reason: %s\n", p.Risk, p.Options, p.Reason)
		reply := protocol.PermissionReply{Reply: protocol.ReplyOnce, Feedback: demoNote}
		b, _ := json.Marshal(reply)
		fmt.Fprintf(out, "  user answers    %s\n", b)
		return reply, nil
	})
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(pipe{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.AsyncHandler(asker))

	var init protocol.InitializeResult
	if err := conn.Call(ctx, protocol.MethodInitialize, protocol.InitializeParams{ProtocolVersion: 1,
		ClientInfo: &protocol.ClientInfo{Name: "demo-editor", Version: "1"}, Capabilities: &protocol.ClientCapabilities{Prompt: true},
		Project: &protocol.Project{Root: project}}, &init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	fmt.Fprintf(out, "initialize       → %s %s, modes %v\n", init.ServerInfo.Name, init.ServerInfo.Version, init.Capabilities.Modes)
	if err := conn.Call(ctx, protocol.MethodSessionOpen, protocol.SessionOpenParams{SessionID: "demo-1", Agent: "demo-agent", Cwd: project}, nil); err != nil {
		return fmt.Errorf("session/open: %w", err)
	}
	if err := conn.Notify(ctx, protocol.MethodSessionTurn, protocol.SessionTurnParams{SessionID: "demo-1", Turn: 1, UserMessage: "tidy up the repo and run the linter"}); err != nil {
		return err
	}
	fmt.Fprintf(out, "session/open     demo-1, turn 1: \"tidy up the repo and run the linter\"\n\n")

	steps := []struct {
		title string
		call  protocol.ToolCall
	}{
		{"1. read a project file (deterministic fast path)",
			protocol.ToolCall{ToolCallID: "c1", Tool: "read", Kind: protocol.KindRead, RawInput: json.RawMessage(`{"path":"README.md"}`)}},
		{"2. rm -rf / (hard floor)",
			protocol.ToolCall{ToolCallID: "c2", Tool: "bash", Kind: protocol.KindExecute, RawInput: json.RawMessage(`{"command":"rm -rf /"}`)}},
		{"3. an unknown command (escalated to the user, who answers with a note)",
			protocol.ToolCall{ToolCallID: "c3", Tool: "bash", Kind: protocol.KindExecute, RawInput: json.RawMessage(`{"command":"make lint"}`)}},
	}
	for _, st := range steps {
		fmt.Fprintf(out, "%s\n  editor → peer   session/requestPermission %s %s\n", st.title, st.call.Tool, st.call.RawInput)
		var reply json.RawMessage
		if err := conn.Call(ctx, protocol.MethodRequestPermission, protocol.RequestPermissionParams{SessionID: "demo-1", Turn: 1, ToolCall: st.call}, &reply); err != nil {
			return fmt.Errorf("requestPermission: %w", err)
		}
		fmt.Fprintf(out, "  peer → editor   %s\n\n", reply)
	}

	var audit protocol.AuditResult
	if err := conn.Call(ctx, protocol.MethodPermissionAudit, protocol.AuditParams{SessionID: "demo-1"}, &audit); err != nil {
		return fmt.Errorf("permission/audit: %w", err)
	}
	fmt.Fprintf(out, "permission/audit → %d records\n", len(audit.Records))
	for _, r := range audit.Records {
		note := ""
		if r.Reply.Feedback != "" && r.Source == protocol.SourceUser {
			note = fmt.Sprintf("  note %q", r.Reply.Feedback)
		}
		fmt.Fprintf(out, "  #%s %-7s by %-8s %s%s\n", r.ID, r.Decision, r.DecidedBy, r.Action, note)
	}
	var rules protocol.RulesResult
	if err := conn.Call(ctx, protocol.MethodPermissionRules, protocol.RulesParams{SessionID: "demo-1"}, &rules); err != nil {
		return fmt.Errorf("permission/rules: %w", err)
	}
	fmt.Fprint(out, "\npermission/rules → the note is now a user rule the judge reads from the next turn:\n")
	for _, line := range strings.Split(strings.TrimRight(rules.Rendered, "\n"), "\n") {
		fmt.Fprintf(out, "  %s\n", line)
	}
	if err := conn.Call(ctx, protocol.MethodShutdown, nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	_ = conn.Notify(ctx, protocol.MethodExit, nil)
	werr := cmd.Wait()
	_ = conn.Close()
	code := 0
	if werr != nil {
		code = -1
		if ee, ok := werr.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	fmt.Fprintf(out, "\nshutdown, exit   → peer exited with code %d\n", code)
	if code != 0 {
		return fmt.Errorf("peer exited with code %d", code)
	}
	if len(audit.Records) != len(steps) {
		return fmt.Errorf("expected %d audit records, got %d", len(steps), len(audit.Records))
	}
	if !strings.Contains(rules.Rendered, demoNote) {
		return fmt.Errorf("the user's note did not become a rule")
	}
	return nil
}

// pipe joins the peer's stdout and stdin into one stream.
type pipe struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipe) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipe) Close() error {
	_ = p.w.Close()
	return p.ReadCloser.Close()
}
