// Package redact removes secrets (Authorization and Bearer headers, tokens,
// API keys, private keys, password= values) from text and tool calls before
// they are shown to the judge or written to the audit log.
package redact
