// Command hookcall measures one host hook call end to end (spawn the
// process, write the hook's JSON, read the answer, exit) for
// `perm-peer hook claude-code` deciding a known-safe PreToolUse (gate,
// durable audit record, answer) beside two floors run in the same loop:
// a bare Go process that reads the same JSON and prints a fixed answer,
// and that process linking the schema validator and committing one bbolt
// record with fsync (bench/hookcall/floor). The runs are interleaved so
// that a noisy neighbour slows all three alike.
//
//	go run ./bench/hookcall -peer bin/perm-peer [-n 200]
package main
