// Package corpus scores the gate against a labelled corpus of tool calls
// (SPEC §9): each JSONL row is decided in a fresh world (no grants, judge
// off, mode ask) and passes when the decision is the expected one or an
// allowed alternative; it backs "perm-peer eval" and the corpus tests.
package corpus
