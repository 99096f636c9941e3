package schemas

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/perm-peer/perm-peer/protocol"
)

const (
	canonicalReply = "session-requestPermission.result.schema.json"
	askReply       = "permission-ask.result.schema.json"
)

func TestPermissionReplySchemas(t *testing.T) {
	tests := []struct {
		doc        string
		legacyOK   bool    // valid for permission-reply / permission/ask result
		canonical  bool    // valid for session/requestPermission result
		wantCauses []Cause // causes against permission-reply.schema.json when invalid
	}{
		{doc: `{"reply":"once"}`, legacyOK: true, canonical: true},
		{doc: `{"reply":"once","feedback":"approve all log-viewing commands"}`, legacyOK: true, canonical: true},
		{doc: `{"reply":"always"}`, legacyOK: true, canonical: true},
		{doc: `{"reply":"always","feedback":"..."}`, legacyOK: true, canonical: true},
		{doc: `{"reply":"reject","feedback":"blocked by policy; do not retry a variation; ask the user if it is needed",
			"_meta":{"decidedBy":"floor","risk":"critical","reason":"rm -rf /","auditId":"00000001"}}`, legacyOK: true, canonical: true},
		{doc: `{"reply":"once","_meta":{"decidedBy":"user","toolResultNote":"User approved this tool call with feedback: x","vendor":1}}`,
			legacyOK: true, canonical: true},
		{doc: `"once"`, legacyOK: true},
		{doc: `"reject"`, legacyOK: true},
		{doc: `"allow"`, wantCauses: []Cause{{"", `value must be one of "once", "always", "reject"`, 0}}},
		{doc: `{"reply":"once","feedbak":"only in /tmp"}`, wantCauses: []Cause{{"/feedbak", unknown, 0}}},
		{doc: `{"reply":"maybe"}`, wantCauses: []Cause{
			{"", "expected string, but got object", 0},
			{"/reply", `value must be "always"`, 0},
			{"/reply", `value must be "once"`, 0},
			{"/reply", `value must be "reject"`, 0},
		}},
		{doc: `{"feedback":"x"}`, wantCauses: []Cause{{"/reply", missing, 0}}},
		{doc: `{"reply":"always","feedback":null}`, wantCauses: []Cause{{"/feedback", "expected string, but got null", 0}}},
		{doc: `{"reply":"reject","_meta":{"decidedBy":"policy"}}`, wantCauses: []Cause{
			{"/_meta/decidedBy", `value must be one of "floor", "rule", "grant", "session", "gate", "mode", "judge", "user", "headless", "host"`, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			for _, name := range []string{PermissionReplySchema, askReply} {
				err := Validate(name, []byte(tt.doc))
				if tt.legacyOK {
					assert.NoError(t, err, name)
					continue
				}
				var ve *Error
				require.True(t, errors.As(err, &ve), "%s: want *Error, got %v", name, err)
				assert.Equal(t, tt.wantCauses, ve.Causes, name)
			}
			err := Validate(canonicalReply, []byte(tt.doc))
			if tt.canonical {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

// TestReplySchemaAgreesWithDecoder: whatever the schema accepts, the Go
// decoder accepts too and reads the same reply kind; every encoding of a
// decoded reply is canonical.
func TestReplySchemaAgreesWithDecoder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := replyDoc().Draw(t, "doc")
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		if Validate(PermissionReplySchema, b) != nil {
			return
		}
		var r protocol.PermissionReply
		require.NoError(t, json.Unmarshal(b, &r), "schema accepted %s but the decoder did not", b)
		out, err := json.Marshal(r)
		require.NoError(t, err)
		require.NoError(t, Validate(canonicalReply, out), "re-encoded %s is not canonical", out)
		if s, ok := doc.(string); ok {
			require.Equal(t, protocol.ReplyKind(s), r.Reply)
		} else {
			require.Equal(t, doc.(map[string]any)["reply"], string(r.Reply))
		}
	})
}

// replyDoc draws near-miss replies: right and wrong kinds, notes, metas,
// stray keys and bare strings.
func replyDoc() *rapid.Generator[any] {
	kind := rapid.SampledFrom([]string{"once", "always", "reject", "allow", "", "Once"})
	return rapid.Custom(func(t *rapid.T) any {
		if rapid.Bool().Draw(t, "bare") {
			return kind.Draw(t, "bareKind")
		}
		m := map[string]any{}
		if rapid.IntRange(0, 5).Draw(t, "hasReply") > 0 {
			m["reply"] = kind.Draw(t, "reply")
		}
		switch rapid.IntRange(0, 3).Draw(t, "feedback") {
		case 1:
			m["feedback"] = rapid.String().Draw(t, "note")
		case 2:
			m["feedback"] = 1
		}
		switch rapid.IntRange(0, 3).Draw(t, "meta") {
		case 1:
			m["_meta"] = map[string]any{"decidedBy": rapid.SampledFrom([]string{"user", "judge", "boss"}).Draw(t, "by")}
		case 2:
			m["_meta"] = []any{}
		}
		if rapid.IntRange(0, 4).Draw(t, "extra") == 0 {
			m[rapid.SampledFrom([]string{"feedbak", "note", "x"}).Draw(t, "key")] = "v"
		}
		return m
	})
}
