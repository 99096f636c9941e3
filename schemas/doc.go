// Package schemas holds the JSON Schemas (draft 2020-12) of every params and
// result type of the wire protocol and of the policy file, generated from the
// Go types in package protocol and checked in, and validates documents
// against them.
package schemas
