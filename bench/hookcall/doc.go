// Command hookcall measures one host hook call end to end (spawn the
// process, write the hook's JSON, read the answer, exit) for
// `perm-peer hook claude-code` deciding a known-safe PreToolUse (gate,
// durable audit record, answer) beside two floors run in the same loop:
// a bare Go process that reads the same JSON and prints a fixed answer,
// that process committing one bbolt record with fsync, and the same
// linking perm-peer's schemas package (bench/hookcall/floor). The runs are
// interleaved so that a noisy neighbour slows all alike. With -base, an
// earlier binary's three calls run in the same loop: before and after in
// one run.
//
//	go run ./bench/hookcall -peer bin/perm-peer [-base OLD/perm-peer] [-n 200]
package main
