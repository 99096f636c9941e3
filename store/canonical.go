package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/perm-peer/perm-peer/protocol"
)

// A record's hash covers its canonical encoding (see recordHash): the JSON
// object with keys sorted, no insignificant whitespace, no HTML escaping and
// numbers as written. Four members are known only inside the write
// transaction (id, ts, prev, and hash itself), so an append encodes the rest
// before it queues (on the caller's goroutine, in parallel with other
// callers) and the transaction only splices the four in. That keeps the
// serialized part of a group commit to a copy and a sha256 per record.
//
// Invariant: encodedRecord.bytes(id, ts, prev, "") is exactly the bytes
// recordHash re-encodes from what is stored, so Verify recomputes the same
// hash. recordHash goes through encoding/json (decode into maps, encode);
// an append canonicalizes the record's JSON bytes directly (canonjson.go,
// half the cost). FuzzCanonicalJSON checks the two canonical forms agree
// on any JSON, and FuzzCanonicalRecord and TestEncodedRecordMatchesRecordHash
// check the hashes on records.

// Members filled in by the write transaction.
const (
	memberID   = "id"
	memberTS   = "ts"
	memberPrev = "prev"
	memberHash = "hash"
)

// member is one top-level member: its encoded key and canonical value.
type member struct {
	key  string // the plain key, for sorting
	json []byte // `"key":value`
}

// encodedRecord is a record's canonical members other than the four the
// transaction fills in, sorted by key.
type encodedRecord struct {
	members []member
}

// encodeRecord encodes rec's members canonically. It fails for a record that
// cannot be encoded (invalid raw JSON inside), so such a record never joins
// a batch.
func encodeRecord(rec protocol.AuditRecord) (encodedRecord, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return encodedRecord{}, fmt.Errorf("encode: %w", err)
	}
	ms, err := canonMembers(buf.Bytes())
	if err != nil {
		return encodedRecord{}, fmt.Errorf("encode: %w", err)
	}
	e := encodedRecord{members: ms[:0]}
	for _, m := range ms {
		switch m.key {
		case memberID, memberTS, memberPrev, memberHash:
			continue
		}
		e.members = append(e.members, m)
	}
	return e, nil
}

// encodeMember encodes one of the members the transaction fills in.
func encodeMember(key, v string) (member, error) {
	k, err := canonicalString(key)
	if err != nil {
		return member{}, err
	}
	val, err := canonicalString(v)
	if err != nil {
		return member{}, fmt.Errorf("encode %s: %w", key, err)
	}
	b := make([]byte, 0, len(k)+1+len(val))
	b = append(append(append(b, k...), ':'), val...)
	return member{key: key, json: b}, nil
}

// canonicalString is the canonical encoding of s: quoted as is when s is
// printable ASCII without a quote or backslash (ids, timestamps, hex
// hashes), else by canonicalValue.
func canonicalString(s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b >= 0x7f || b == '"' || b == '\\' {
			return canonicalValue(s)
		}
	}
	return append(append(append(make([]byte, 0, len(s)+2), '"'), s...), '"'), nil
}

// canonicalValue encodes a decoded JSON value (json.Number for numbers) the
// canonical way: encoding/json sorts map keys, and HTML escaping is off.
func canonicalValue(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// bytes returns the whole canonical record with the four transaction
// members spliced in at their sorted places.
func (e encodedRecord) bytes(id, ts, prev, hash string) ([]byte, error) {
	extra := make([]member, 0, 4)
	for _, kv := range [...][2]string{{memberHash, hash}, {memberID, id}, {memberPrev, prev}, {memberTS, ts}} {
		mb, err := encodeMember(kv[0], kv[1])
		if err != nil {
			return nil, err
		}
		extra = append(extra, mb) // already in key order
	}
	n := 2
	for _, m := range e.members {
		n += len(m.json) + 1
	}
	for _, m := range extra {
		n += len(m.json) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	i, j := 0, 0
	for i < len(e.members) || j < len(extra) {
		var next member
		if j == len(extra) || (i < len(e.members) && e.members[i].key < extra[j].key) {
			next, i = e.members[i], i+1
		} else {
			next, j = extra[j], j+1
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, next.json...)
	}
	return append(out, '}'), nil
}
