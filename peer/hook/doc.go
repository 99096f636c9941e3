// Package hook makes perm-peer the permission hook of agent hosts that run
// a command before a tool call and read a decision from it: Claude Code,
// Codex CLI, Gemini CLI and Cursor (SPEC §10.2).
//
// One process serves one hook call, in four stages: read the host's JSON
// (host.parse: an Event), map its tool onto a protocol.ToolCall, decide
// through the same pipeline, store and judge as `perm-peer serve`
// (peer.Server.Decide, with an Asker that defers a call needing a human to
// the host), and answer in the host's own form (host.answer).
//
// Additive: a deny, an allow and a human-only ask are answered; any other
// ask gets no verdict, so the host's own mode and rules decide it as
// without perm-peer (policy "hookAsks": "perm-peer" asks instead). A call
// left to the host is pending until the host reports its outcome
// (PostToolUse, the transcript), which is audited as the user's only when
// a person was shown the call, else as the host's own.
//
// The session's project is pinned at its first event (Pins: an index
// beside the DBs, keyed by host and session id), so an agent's cd moves
// neither the project nor its DB. What a session must remember between
// calls (its turn and prompt, the calls left to the host) lives in the
// project's DB (store.HookTurn, store.PendingAsk), shared with every other
// perm-peer process.
//
// These hosts run the tool when a hook fails (exit 1, garbage, a timeout),
// so every failure answers deny in the host's blocking form (host.fail):
// unreadable input, an unknown event, a policy or DB that cannot be opened,
// a DB busy past its bound, a panic, and a decision not made within the
// bound (a watchdog answers for it, unless the decision has begun its
// audit record: then the host hears what the audit says).
package hook
