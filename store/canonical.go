package store

import (
	"bytes"
	"encoding/json"
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
// an append writes the members from the record's fields (recordjson.go)
// and its raw input through canonjson.go. FuzzCanonicalJSON checks the two
// canonical forms agree on any JSON, TestDirectRecordMatchesGeneric and
// FuzzDirectRecord that the fields' encoding is the generic one, and
// FuzzCanonicalRecord and TestEncodedRecordMatchesRecordHash check the
// hashes on records.

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
	extra := [...][2]string{{memberHash, hash}, {memberID, id}, {memberPrev, prev}, {memberTS, ts}} // in key order
	n := 2 + 4*8 + len(id) + len(ts) + len(prev) + len(hash)
	for _, m := range e.members {
		n += len(m.json) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	i, j := 0, 0
	for i < len(e.members) || j < len(extra) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		if j == len(extra) || (i < len(e.members) && e.members[i].key < extra[j][0]) {
			out = append(out, e.members[i].json...)
			i++
			continue
		}
		out = append(appendCanonString(out, extra[j][0]), ':')
		out = appendCanonString(out, extra[j][1])
		j++
	}
	return append(out, '}'), nil
}
