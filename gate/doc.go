// Package gate is perm-peer's deterministic analyser and rule engine.
//
// Analyze turns a tool call into normalized facts (commands with argv, reads,
// writes, deletes, network sinks, environment assignments, opaque code) by
// walking the shell AST with mvdan.cc/sh, then decides each fact against the
// hard floors, the human-only classes, sensitive paths, the policy's rules,
// grants and the known-safe set. The call's decision is the aggregate: deny if
// any fact is denied, ask if any asks, allow only if all are allowed. Analyze
// never fails: whatever it cannot understand becomes a fact that asks.
package gate
