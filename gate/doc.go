// Package gate is perm-peer's deterministic analyser and rule engine.
//
// Analyze turns a tool call into normalized facts (commands with argv, reads,
// writes, deletes, network sinks, environment assignments, opaque code) by
// walking the shell AST with mvdan.cc/sh, then decides each fact against the
// hard floors, the human-only classes, sensitive paths, the policy's rules,
// grants and the known-safe set. The call's decision is the aggregate: deny if
// any fact is denied, ask if any asks, allow only if all are allowed. Analyze
// never fails: whatever it cannot understand becomes a fact that asks.
//
// The files are the stages of a call's way through it: gate.go (the API
// and Analyze) → input.go (the tool call's class and paths) → parse.go
// (text to syntax tree) → walk.go, assign.go, redirect.go, words.go (the
// tree walked as the shell would run it: statements, assignments,
// redirections, words) → commands.go (exec: a simple command looked up in
// the command table, gate/internal/cmds) → engine.go (the families a
// program belongs to) → builtins.go and the hooks_*.go
// (what a program's words do, a hook named by its table entry, the
// embedded languages read by gate/internal/scripts) → paths.go,
// sensitive.go, floors.go, ownfiles.go (where a path is and what it holds)
// → facts.go (the facts) → decide.go (each fact against floors, rules,
// grants and the known-safe set, then the verdict).
package gate
