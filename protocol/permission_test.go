package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPermissionReplyRoundTrip: every canonical encoding decodes and
// re-encodes to the same bytes.
func TestPermissionReplyRoundTrip(t *testing.T) {
	canonical := []string{
		`{"reply":"once"}`,
		`{"reply":"always"}`,
		`{"reply":"reject"}`,
		`{"reply":"once","feedback":"approve all log-viewing commands"}`,
		`{"reply":"always","feedback":"tests are fine"}`,
		`{"reply":"reject","feedback":"never touch prod"}`,
		`{"reply":"once","_meta":{"decidedBy":"gate","risk":"low"}}`,
		`{"reply":"reject","feedback":"blocked by policy","_meta":{"decidedBy":"floor","risk":"critical","reason":"recursive deletion of /","auditId":"7"}}`,
		`{"reply":"once","feedback":"ok","_meta":{"decidedBy":"user","toolResultNote":"User approved this tool call with feedback: ok"}}`,
		`{"reply":"once","feedback":"quotes \" and \u003ctags\u003e survive"}`,
	}
	for _, in := range canonical {
		var r PermissionReply
		require.NoError(t, json.Unmarshal([]byte(in), &r), in)
		out, err := json.Marshal(r)
		require.NoError(t, err)
		assert.Equal(t, in, string(out))
	}
}

// TestPermissionReplyEncode: the struct forms encode exactly, with no
// feedback key and no nulls when there is no note.
func TestPermissionReplyEncode(t *testing.T) {
	cases := []struct {
		r    PermissionReply
		want string
	}{
		{PermissionReply{Reply: ReplyOnce}, `{"reply":"once"}`},
		{PermissionReply{Reply: ReplyAlways}, `{"reply":"always"}`},
		{PermissionReply{Reply: ReplyReject}, `{"reply":"reject"}`},
		{PermissionReply{Reply: ReplyOnce, Feedback: "approve all log-viewing commands"}, `{"reply":"once","feedback":"approve all log-viewing commands"}`},
		{PermissionReply{Reply: ReplyReject, Meta: &ReplyMeta{DecidedBy: ByHeadless}}, `{"reply":"reject","_meta":{"decidedBy":"headless"}}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.r)
		require.NoError(t, err)
		assert.Equal(t, c.want, string(b))
	}
}

func TestPermissionReplyDecode(t *testing.T) {
	cases := []struct {
		in      string
		want    PermissionReply
		wantErr string
	}{
		{in: `"once"`, want: PermissionReply{Reply: ReplyOnce}},       // legacy bare form
		{in: ` "reject" `, want: PermissionReply{Reply: ReplyReject}}, // whitespace around it
		{in: `{"reply":"once","feedback":"x","extra":1}`, want: PermissionReply{Reply: ReplyOnce, Feedback: "x"}},
		{in: `{"reply":"allow"}`, wantErr: `unknown reply "allow"`},
		{in: `"yes"`, wantErr: `unknown reply "yes"`},
		{in: `{"reply":"ONCE"}`, wantErr: `unknown reply "ONCE"`},
		{in: `{}`, wantErr: `missing "reply"`},
		{in: `{"feedback":"x"}`, wantErr: `missing "reply"`},
		{in: `{"reply":1}`, wantErr: "cannot unmarshal number"},
		{in: `null`, wantErr: `missing "reply"`},
		{in: `[]`, wantErr: "cannot unmarshal array"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			var r PermissionReply
			err := json.Unmarshal([]byte(c.in), &r)
			if c.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, r)
		})
	}
}

// TestPermissionReplyInResult: an unknown reply inside an editor's
// permission/ask result is a decode error, never a silent zero value.
func TestPermissionReplyInResult(t *testing.T) {
	var v struct {
		R PermissionReply `json:"r"`
	}
	err := json.Unmarshal([]byte(`{"r":{"reply":"allow_always"}}`), &v)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), `"allow_always"`), err.Error())
}
