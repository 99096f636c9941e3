// Package peer is the perm-peer JSON-RPC server: framing, dispatch, sessions,
// the decision pipeline and escalation to the editor.
//
// It is a thin dispatcher over the gate (deterministic analysis), the judge
// (the LLM) and the store (the audit log): Server.decide runs SPEC §4's
// pipeline and never answers before the decision's audit record is durable.
// The framing layer (Stream) is ours, not jsonrpc2's, because a connection
// that dies on one bad frame would hand the agent's host an error it might
// treat as "allow".
package peer
