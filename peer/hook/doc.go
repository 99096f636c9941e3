// Package hook makes perm-peer the permission hook of agent hosts that run
// a command before a tool call and read a decision from it: Claude Code,
// Codex CLI, Gemini CLI and Cursor (SPEC §10.2).
//
// One process serves one hook call, in four stages: read the host's JSON
// (host.parse: an Event), map its tool onto a protocol.ToolCall, decide
// through the same pipeline, store and judge as `perm-peer serve`
// (peer.Server.Decide, with an Asker that leaves a call needing a human to
// the host's own dialog), and answer in the host's own form (host.answer).
// The session's project is pinned at its first event (Pins: an index
// beside the DBs, keyed by host and session id), so an agent's cd moves
// neither the project nor its DB. What a session must remember between
// calls (its turn and prompt, the calls left to the host's dialog) lives
// in the project's DB
// (store.HookTurn, store.PendingAsk), shared with every other perm-peer
// process.
//
// These hosts run the tool when a hook fails (exit 1, garbage, a timeout),
// so every failure answers deny in the host's blocking form (host.fail):
// unreadable input, an unknown event, a policy or DB that cannot be opened,
// a DB busy past its bound, a panic, and a decision not made within the
// bound (a watchdog answers for it).
package hook
