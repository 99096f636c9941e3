// Package conformance is perm-peer's wire conformance suite: JSON test
// vectors (vectors/*.json, embedded) and a runner that launches any peer
// command as a subprocess, drives it over both framings (LSP Content-Length
// and NDJSON), checks every reply against the vector and every result
// against the protocol's JSON Schemas, and reports a pass/fail table.
//
// The runner knows nothing of perm-peer's flags: each vector runs in a fresh
// temporary project directory (the working directory) with HOME,
// XDG_CONFIG_HOME and XDG_STATE_HOME pointing at fresh temporary
// directories, so a foreign peer needs no options at all. The vector format
// is documented in vectors/README.md.
package conformance
