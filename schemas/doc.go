// Package schemas holds the JSON Schemas (draft 2020-12) of every params and
// result type of the wire protocol and of the policy file, generated from the
// Go types in package protocol by the tests (make schemas) and checked in,
// and validates documents against them. Nothing is compiled before a
// document needs its schema: the hot paths take the strict decoders
// (strict.go) and the validator explains a rejection.
package schemas
