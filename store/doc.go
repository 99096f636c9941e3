// Package store keeps perm-peer's durable state in one bbolt file per
// project: the append-only, hash-chained audit log with its per-session
// index, persistent grants and sessions.
//
// Invariant: AppendAudit returns only after the record's transaction is
// committed and synced, so a caller that replies after AppendAudit never
// answers a call whose record could be lost.
package store
