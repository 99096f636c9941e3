package acpproxy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/jsonkey"
	"github.com/perm-peer/perm-peer/protocol"
)

var claudeOptions = []protocol.ACPPermissionOption{
	{OptionID: "allow_always", Kind: protocol.ACPAllowAlways},
	{OptionID: "allow", Kind: protocol.ACPAllowOnce},
	{OptionID: "reject", Kind: protocol.ACPRejectOnce},
}

func TestNarrow(t *testing.T) {
	sel := func(id string) protocol.ACPRequestPermissionResult { return selected(id, nil) }
	withRejectAlways := append(claudeOptions[:3:3], protocol.ACPPermissionOption{OptionID: "never", Kind: protocol.ACPRejectAlways})
	cases := []struct {
		name   string
		res    protocol.ACPRequestPermissionResult
		opts   []protocol.ACPPermissionOption
		chosen protocol.ACPPermissionKind
		want   string
	}{
		{"allow_always becomes allow_once", sel("allow_always"), claudeOptions, protocol.ACPAllowAlways, "allow"},
		{"allow_always stays when no allow_once is offered", sel("a"), []protocol.ACPPermissionOption{{OptionID: "a", Kind: protocol.ACPAllowAlways}}, "", "a"},
		{"allow_once stays", sel("allow"), claudeOptions, "", "allow"},
		{"a human's reject_always is relayed", sel("reject"), withRejectAlways, protocol.ACPRejectAlways, "never"},
		{"a reject by perm-peer stays reject_once", sel("reject"), withRejectAlways, "", "reject"},
	}
	for _, c := range cases {
		if got := narrow(c.res, c.opts, c.chosen); got.Outcome.OptionID != c.want {
			t.Errorf("%s: option %q, want %q", c.name, got.Outcome.OptionID, c.want)
		}
	}
	if got := narrow(cancelled(nil), claudeOptions, protocol.ACPAllowOnce); got.Outcome.Outcome != protocol.ACPOutcomeCancelled {
		t.Errorf("cancelled became %+v", got)
	}
}

func TestUserReply(t *testing.T) {
	answer := func(s string) envelope {
		e, err := parseEnvelope([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	cases := []struct {
		line  string
		reply protocol.ReplyKind
		bad   bool
	}{
		{line: `{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`, reply: protocol.ReplyOnce},
		{line: `{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"allow_always"}}}`, reply: protocol.ReplyAlways},
		{line: `{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"reject"}}}`, reply: protocol.ReplyReject},
		{line: `{"id":1,"result":{"outcome":{"outcome":"cancelled"}}}`, bad: true},
		{line: `{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"made-up"}}}`, bad: true},
		// the kind decides, not an id that looks like one
		{line: `{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`, bad: true},
		{line: `{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"reject","OptionId":"allow"}}}`, bad: true},
		{line: `{"id":1,"error":{"code":-32603,"message":"boom"}}`, bad: true},
	}
	for _, c := range cases {
		got, _, err := userReply(answer(c.line), claudeOptions)
		if c.bad {
			if err == nil {
				t.Errorf("%s: reply %+v, want an error", c.line, got)
			}
			continue
		}
		if err != nil || got.Reply != c.reply {
			t.Errorf("%s: %+v, %v; want %s", c.line, got, err, c.reply)
		}
	}
}

func TestEffectCall(t *testing.T) {
	sess, call, err := effectCall(methodTerminalCreate, json.RawMessage(
		`{"sessionId":"s","command":"echo","args":["hi;","rm","-rf","~"],"env":[{"name":"PAGER","value":"less"}],"cwd":"/repo"}`))
	if err != nil || sess != "s" {
		t.Fatal(sess, err)
	}
	var in map[string]any
	if err := json.Unmarshal(call.RawInput, &in); err != nil {
		t.Fatal(err)
	}
	// the shell reads the arguments as they are: the gate must see "; rm -rf ~"
	if in["command"] != "echo hi; rm -rf ~" || in["cwd"] != "/repo" || in["env"].(map[string]any)["PAGER"] != "less" || call.Tool != "bash" {
		t.Fatalf("terminal call = %+v %v", call, in)
	}
	big := strings.Repeat("x", maxEffectContent+100)
	_, call, err = effectCall(methodWriteFile, json.RawMessage(`{"sessionId":"s","path":"/repo/a","content":"`+big+`"}`))
	if err != nil || call.Tool != "write" || len(call.RawInput) > maxEffectContent+100 {
		t.Fatalf("write call: %v, %d bytes of input", err, len(call.RawInput))
	}
	for _, bad := range []struct{ method, params string }{
		{methodWriteFile, `{"sessionId":"s","path":"/repo/a","PATH":"/home/u/.bashrc","content":""}`},
		{methodReadFile, `{"sessionId":"s"}`},
		{methodReadFile, `{"path":"/repo/a"}`},
		{methodTerminalCreate, `{"sessionId":"s","command":"  "}`},
		{methodTerminalCreate, `not json`},
	} {
		if _, c, err := effectCall(bad.method, json.RawMessage(bad.params)); err == nil {
			t.Errorf("%s %s: %+v, want an error", bad.method, bad.params, c)
		}
	}
}

func TestSameAction(t *testing.T) {
	write := protocol.Fact{Kind: protocol.FactWrite, Path: "/repo/a"}
	if !sameAction(write, protocol.Fact{Kind: protocol.FactWrite, Path: "/repo/a", Decision: protocol.DecisionAsk}) {
		t.Error("the same write on the same path is the same action")
	}
	if sameAction(write, protocol.Fact{Kind: protocol.FactWrite, Path: "/repo/b"}) || sameAction(write, protocol.Fact{Kind: protocol.FactRead, Path: "/repo/a"}) {
		t.Error("another path or another kind is another action")
	}
	if sameAction(protocol.Fact{Kind: protocol.FactExec, Argv: []string{"make"}}, protocol.Fact{Kind: protocol.FactExec, Argv: []string{"make", "clean"}}) {
		t.Error("another command is another action")
	}
}

func TestMemoryBounds(t *testing.T) {
	m := newMemory()
	for i := range maxSetups + 10 {
		m.noteSetup(string(rune('a'+i%26))+strings.Repeat("x", i), setup{method: methodSessionNew})
	}
	if len(m.setups) != maxSetups || len(m.setupIDs) != maxSetups {
		t.Fatalf("%d setups kept, want %d", len(m.setups), maxSetups)
	}
	m.nextTurn("s")
	for range maxApprovals + 5 {
		m.approve("s", protocol.ToolCall{Tool: "bash"})
	}
	m.approve("s", protocol.ToolCall{Tool: "bash", RawInput: json.RawMessage(`"` + strings.Repeat("x", maxApprovalBytes) + `"`)})
	if n := len(m.approved("s")); n != maxApprovals {
		t.Fatalf("%d approvals kept, want %d", n, maxApprovals)
	}
	if m.nextTurn("s") != 2 || len(m.approved("s")) != 0 {
		t.Fatal("a new turn ends the old turn's approvals")
	}
	for i := range maxSessions + 1 {
		m.nextTurn(strings.Repeat("s", i+2))
	}
	if len(m.turns) != maxSessions || m.turn("s") != 0 {
		t.Fatalf("%d sessions kept (oldest first out), want %d", len(m.turns), maxSessions)
	}
	long := promptText(promptParams{Prompt: []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{{Type: "text", Text: strings.Repeat("é", maxPromptBytes)}, {Type: "image"}, {Type: "text", Text: "more"}}})
	if len(long) > maxPromptBytes || !strings.HasPrefix(long, "é") {
		t.Fatalf("prompt text of %d bytes", len(long))
	}
}

func TestWithDiffLocations(t *testing.T) {
	u := protocol.ACPToolCallUpdate{ToolCallID: "g", Kind: protocol.KindEdit,
		Content:   json.RawMessage(`[{"type":"content","content":{"type":"text","text":"x"}},{"type":"diff","path":"/repo/a","oldText":"","newText":"y"}]`),
		Locations: []protocol.Location{{Path: "/repo/b"}}}
	got := withDiffLocations(u)
	if len(got.Locations) != 2 || got.Locations[1].Path != "/repo/a" || len(u.Locations) != 1 {
		t.Fatalf("locations %+v (original %+v)", got.Locations, u.Locations)
	}
	if again := withDiffLocations(got); len(again.Locations) != 2 {
		t.Fatalf("a known path is not added twice: %+v", again.Locations)
	}
}

// An update too large to remember leaves a call only a human may approve.
func TestForgetBulk(t *testing.T) {
	u := forgetBulk(protocol.ACPToolCallUpdate{ToolCallID: "t", Kind: protocol.KindRead, Title: strings.Repeat("t", 5000),
		RawInput: json.RawMessage(`{"path":"README.md"}`), Content: json.RawMessage(`[]`)})
	if len(u.Title) != 1024 || u.Content != nil || jsonkey.Repeated(u.RawInput) == "" {
		t.Fatalf("forgetBulk = %+v", u)
	}
}
