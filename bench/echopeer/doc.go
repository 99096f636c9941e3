// Command echopeer is the floor perm-peer is measured against: a bare
// JSON-RPC 2.0 peer on stdio that reads frames in either framing (the first
// non-blank byte picks it, as perm-peer's --framing auto does), decodes each
// whole message and answers every request with {"reply":"once"} under the
// same id and framing. It does no analysis, no validation and no I/O besides
// stdio, so the difference between it and perm-peer is perm-peer's own work.
//
// With --commit-db PATH it also commits one key durably to a bbolt file
// before each reply: the least that "audit before reply" can cost, which
// the bench harness measures as a second floor for sequential latency.
//
// Built with -tags validate it also validates every request's params against
// perm-peer's schemas with santhosh-tekuri/jsonschema/v5 (perm-peer's copy,
// schemas/internal/jsonschema, which compiles the meta-schemas on first
// use), as SPEC §4 requires of perm-peer: running that validator is a cost
// no conforming peer avoids, so the harness reports this third floor
// beside the targets.
package main
