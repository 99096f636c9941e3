// Package protocol holds the perm-peer wire protocol v1: method names, error
// codes and the params/result types of every method, as plain data.
//
// It performs no I/O and imports nothing of this module, so editors, the peer,
// the schema generator and the conformance runner all share one definition of
// the bytes on the wire. The only behaviour here is JSON decoding that rejects
// values outside a closed enum (see PermissionReply), because a wire contract
// that silently accepts "allow-ish" values is not a contract.
package protocol
