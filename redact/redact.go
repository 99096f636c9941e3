package redact

import "github.com/perm-peer/perm-peer/protocol"

// STUB: the judge issue replaces it.

// String returns s with secrets replaced by [REDACTED].
func String(s string) string { return s }

// ToolCall returns a copy of call with secrets in its input redacted.
func ToolCall(call protocol.ToolCall) protocol.ToolCall { return call }
