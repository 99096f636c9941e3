package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
)

// FuzzCanonicalRecord: whatever text a record carries (invalid UTF-8, HTML,
// control characters, any raw input JSON), the hash an append computes from
// its spliced canonical bytes is the hash Verify recomputes from what is
// stored, and the stored bytes decode.
func FuzzCanonicalRecord(f *testing.F) {
	f.Add("go test ./...", `{"command":"go test ./..."}`, "fine", "s1")
	f.Add("echo <a> & \"b\"", `{"z":1.50,"a":{"y":[1e3,-0],"b":"\u0041<"}}`, "\u2028\x00\x1f", "")
	f.Add("printf '\xff\xfe'", `"just a string"`, "\xed\xa0\x80", "s\xff")
	f.Add("x", `[{"b":1,"a":2},null,true]`, "", "sess")
	f.Fuzz(func(t *testing.T, command, rawInput, detail, session string) {
		rec := record(session, protocol.SourceUser, command)
		if json.Valid([]byte(rawInput)) {
			rec.ToolCall.RawInput = json.RawMessage(rawInput)
		}
		rec.Reasons = []protocol.Reason{{Code: "x", Detail: detail}}
		rec.Judge = &protocol.JudgeDetails{Model: detail, Verdict: "allow", Reason: command}
		enc, err := encodeRecord(rec)
		if err != nil {
			t.Fatalf("encode a record with valid raw input: %v", err)
		}
		unhashed, err := enc.bytes("7", "2026-11-30T00:00:00Z", "prev", "")
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(unhashed)
		hash := hex.EncodeToString(sum[:])
		stored, err := enc.bytes("7", "2026-11-30T00:00:00Z", "prev", hash)
		if err != nil {
			t.Fatal(err)
		}
		got, err := recordHash(stored)
		if err != nil {
			t.Fatalf("recordHash of stored bytes %q: %v", stored, err)
		}
		if got != hash {
			t.Fatalf("append hashed %s, verify recomputes %s for %q", hash, got, stored)
		}
		back, err := decodeRecord(seqKey(7), stored)
		if err != nil || back.ID != "7" || back.Hash != hash {
			t.Fatalf("stored bytes %q decode to %+v, %v", stored, back, err)
		}
	})
}
