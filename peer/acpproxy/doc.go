// Package acpproxy is perm-peer's ACP proxy (SPEC §10.1): it stands where
// an ACP agent stands (the editor launches it as the agent), runs the real
// agent as its child and relays newline-delimited JSON-RPC both ways. Every
// line it does not act on passes byte for byte, in order. It acts on:
//
//   - what it learns from: session/new, session/load, session/resume and
//     their results (session ids, cwd), session/prompt (a new turn with the
//     user's text), session/update tool_call and tool_call_update (the full
//     tool call, for a permission request that carries only its id);
//   - what it decides: the agent's session/request_permission (answered by
//     perm-peer, or forwarded to the editor when it needs a human), and the
//     editor-side effects fs/write_text_file, fs/read_text_file of a
//     sensitive path and terminal/create (forwarded only when allowed);
//   - session/cancel from the editor, which answers the session's pending
//     requests "cancelled".
//
// A permission request goes to the editor under an id of the proxy's own
// and the answer is matched by it, never by the agent's id, which the agent
// may reuse once it withdrew the request: a late answer is dropped.
//
// The data's way through the package, one file a stage: frame.go reads and
// parses lines, learn.go remembers sessions, turns and approvals, decide.go
// runs the pipeline (peer.Server), answer.go writes the replies, queue.go
// holds the lines on their way to the agent, proxy.go wires the two
// directions together and agent.go runs the child.
//
// Bounds (all remembered state is bounded, so a flooding agent or editor
// cannot grow the proxy without limit):
//   - a line is at most MaxLine bytes (16 MiB); a longer line is dropped
//     and logged (from the agent it is never forwarded: perm-peer could not
//     check it);
//   - at most MaxPending agent requests, of at most maxPendingBytes
//     together, are being decided at once; the next one is answered at once
//     (a permission request "reject", an effect an error), never forwarded;
//   - the editor's lines wait for the agent in a queue of maxQueued bytes:
//     reading the editor (and seeing it leave) never waits on the agent;
//   - at most maxSetups editor session setup requests await the agent's
//     answer, maxSessions sessions keep a turn counter, maxApprovals human
//     approvals are kept per session (this turn only, each at most
//     maxApprovalBytes of tool input); the oldest go first;
//   - the user's prompt text given to the judge is cut at maxPromptBytes;
//   - the tool calls remembered from session/update are the pipeline's
//     (peer: 1024 per session); of an update over maxUpdateBytes (256 KiB)
//     only the small fields are remembered, its input as one only a human
//     may approve, so a request naming the call by its id alone asks.
package acpproxy
