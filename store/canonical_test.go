package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// TestEncodedRecordMatchesRecordHash pins the invariant in canonical.go: the
// bytes an append hashes are exactly what recordHash (and so Verify)
// recomputes from the stored record, for records whose text needs care.
func TestEncodedRecordMatchesRecordHash(t *testing.T) {
	judged := record("s", protocol.SourceJudge, "make deploy")
	judged.Judge = &protocol.JudgeDetails{Model: "m", Verdict: "allow", LatencyMs: 12, PromptPrefixHash: "ab"}
	judged.Reasons = []protocol.Reason{{Code: "judge", Detail: "fine <really> & \"quoted\""}}
	tests := map[string]protocol.AuditRecord{
		"typical":     record("s", protocol.SourceAuto, "go test ./..."),
		"html":        record("s", protocol.SourceAuto, `echo "<script>" && cat a > b`),
		"unicode":     record("s", protocol.SourceUser, "echo héllo 日本 \u2028 \u2029 \x01 tab\there"),
		"invalid utf": record("s", protocol.SourceAuto, "printf '\xff\xfe'"),
		"judged":      judged,
		"unsorted raw input": func() protocol.AuditRecord {
			r := record("s", protocol.SourceAuto, "x")
			r.ToolCall.RawInput = json.RawMessage(`{"z": 1.50, "a": {"y": [1e3, -0, 12345678901234567890], "b": "\u0041<"}, "m": null}`)
			return r
		}(),
		"empty session": record("", protocol.SourceSystem, "ls"),
	}
	for name, rec := range tests {
		t.Run(name, func(t *testing.T) {
			enc, err := encodeRecord(rec)
			require.NoError(t, err)
			unhashed, err := enc.bytes("42", "2026-11-29T23:59:59.123456789Z", "prevhash", "")
			require.NoError(t, err)
			sum := sha256.Sum256(unhashed)
			want := hex.EncodeToString(sum[:])
			stored, err := enc.bytes("42", "2026-11-29T23:59:59.123456789Z", "prevhash", want)
			require.NoError(t, err)
			got, err := recordHash(stored)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			back, err := decodeRecord(seqKey(42), stored)
			require.NoError(t, err)
			assert.Equal(t, "42", back.ID)
			assert.Equal(t, want, back.Hash)
			assert.Equal(t, "prevhash", back.Prev)
			// JSON holds only valid UTF-8: each invalid byte becomes U+FFFD.
			assert.Equal(t, strings.ToValidUTF8(rec.Action, "\uFFFD\uFFFD"), back.Action)
			assert.JSONEq(t, string(rec.ToolCall.RawInput), string(back.ToolCall.RawInput))
		})
	}
}

// The stored form is canonical: keys sorted at every level, compact.
func TestStoredRecordIsCanonical(t *testing.T) {
	r := record("s", protocol.SourceAuto, "x")
	r.ToolCall.RawInput = json.RawMessage(`{"z": 1, "a": {"y": 2, "b": "<"}}`)
	enc, err := encodeRecord(r)
	require.NoError(t, err)
	b, err := enc.bytes("1", "t", "", "h")
	require.NoError(t, err)
	assert.Equal(t, `{"action":"bash: x","decidedBy":"gate","decision":"once","hash":"h","id":"1","prev":"","reply":{"reply":"once"},`+
		`"risk":"low","sessionId":"s","source":"auto","toolCall":{"kind":"execute","rawInput":{"a":{"b":"<","y":2},"z":1},"tool":"bash","toolCallId":"c1"},"ts":"t","turn":1}`,
		string(b))
}
