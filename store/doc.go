// Package store keeps perm-peer's durable state in one bbolt file per
// project: the append-only, hash-chained audit log with its per-session
// index, persistent grants and sessions, and the queries the judge's user
// rules are rebuilt from. Several peer processes share one file, so the bbolt
// file is opened only for the length of a transaction, under a lock on a
// sibling "<db>.lock" file with a bounded wait; AppendAudit returns only after
// the record's transaction is committed and synced (group commit batches
// concurrent appends into one transaction), so a caller that replies after
// AppendAudit never answers a call whose record could be lost. See
// docs/STORE.md for the layout and the invariants.
package store
