package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/perm-peer/perm-peer/protocol"
)

// Fake credentials of the right shapes; none of them is real.
const (
	ghToken    = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	openaiKey  = "sk-proj-abcdefghijklmnop0123456789"
	slackToken = "xoxb-123456789012-abcdefghijkl"
	awsKeyID   = "AKIAIOSFODNN7EXAMPLE"
	jwt        = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"auth header curl", `curl -H 'Authorization: Bearer abc.def.ghi' https://x.test`,
			`curl -H 'Authorization: Bearer [REDACTED]' https://x.test`},
		{"auth header no scheme", `Authorization: s3cr3tvalue`, `Authorization: [REDACTED]`},
		{"auth header basic", `authorization: Basic dXNlcjpwYXNz`, `authorization: Basic [REDACTED]`},
		{"auth header json text", `{"Authorization": "Bearer abcdefgh123"}`, `{"Authorization": "Bearer [REDACTED]"}`},
		{"proxy auth", `Proxy-Authorization: Bearer zzzzzzzz`, `Proxy-Authorization: Bearer [REDACTED]`},
		{"bare bearer", `token is Bearer abcdefgh12345 ok`, `token is Bearer [REDACTED] ok`},
		{"cookie header", `Cookie: session=abc; theme=dark`, `Cookie: [REDACTED]`},
		{"github token", "git clone https://x.test/r --token " + ghToken, "git clone https://x.test/r --token [REDACTED]"},
		{"github token bare", "echo " + ghToken + " done", "echo [REDACTED] done"},
		{"github pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"},
		{"openai key", "export OPENAI_KEY=x; echo " + openaiKey, "export OPENAI_KEY=x; echo [REDACTED]"},
		{"slack token", "curl -d t=" + slackToken, "curl -d t=[REDACTED]"},
		{"aws key id", "aws configure set aws_access_key_id " + awsKeyID, "aws configure set aws_access_key_id [REDACTED]"},
		{"aws secret env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG ls", "AWS_SECRET_ACCESS_KEY=[REDACTED] ls"},
		{"jwt", "token " + jwt, "token [REDACTED]"},
		{"password=", "mysql -u root password=hunter2 -e 'select 1'", "mysql -u root password=[REDACTED] -e 'select 1'"},
		{"password query", "https://x.test/login?user=a&password=hunter2&next=1", "https://x.test/login?user=a&password=[REDACTED]&next=1"},
		{"password flag", "psql --password hunter2 db", "psql --password [REDACTED] db"},
		{"token flag eq", "gh auth --token=abc123 login", "gh auth --token=[REDACTED] login"},
		{"env token", "GITHUB_TOKEN=abc123 gh pr list", "GITHUB_TOKEN=[REDACTED] gh pr list"},
		{"yaml secret", "client_secret: abc123", "client_secret: [REDACTED]"},
		{"json secret keeps quotes", `curl -d '{"user":"a","password":"hunter2"}'`, `curl -d '{"user":"a","password":"[REDACTED]"}'`},
		{"escaped json secret", `{\"api_key\": \"abc123\"}`, `{\"api_key\": \"[REDACTED]\"}`},
		{"url credentials", "git clone https://bob:hunter2@example.com/r.git", "git clone https://bob:[REDACTED]@example.com/r.git"},
		{"private key block", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----\nafter",
			"key:\n[REDACTED]\nafter"},
		{"openssh private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
			"[REDACTED]"},
		{"cut private key", "x -----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN", "x [REDACTED]"},
		// Things that only look secret stay as they are.
		{"tokenizer file", "go test ./tokenizer/... && cat tokenizer.go", "go test ./tokenizer/... && cat tokenizer.go"},
		{"max tokens", `{"max_tokens": 200}`, `{"max_tokens": 200}`},
		{"public key block", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"},
		{"short bearer word", "the bearer of bad news", "the bearer of bad news"},
		{"url without password", "https://example.com:8080/x", "https://example.com:8080/x"},
		{"plain command", "go test ./...", "go test ./..."},
		{"branch name with sk-", "git checkout task-refactor-the-parser-now", "git checkout task-refactor-the-parser-now"},
		{"glued github token", "x" + ghToken, "x[REDACTED]"},
		{"empty", "", ""},
		{"already masked", "password=[REDACTED] Authorization: Bearer [REDACTED]", "password=[REDACTED] Authorization: Bearer [REDACTED]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := String(tc.in)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, got, String(got), "redaction must be idempotent")
		})
	}
}

func TestToolCall(t *testing.T) {
	tests := []struct {
		name      string
		title     string
		raw       string
		wantTitle string
		wantRaw   string
	}{
		{"nothing secret keeps bytes", "Run tests", `{ "command" : "go test ./..." }`,
			"Run tests", `{ "command" : "go test ./..." }`},
		{"command with bearer", "curl", `{"command":"curl -H \"Authorization: Bearer abcdefgh123\" https://x.test","timeout":5}`,
			"curl", `{"command":"curl -H \"Authorization: Bearer [REDACTED]\" https://x.test","timeout":5}`},
		{"secret keys masked whole, order kept", "", `{"url":"https://x.test","headers":{"Authorization":"abc","X-Trace":"1"},"password":"p w","apiKey":42,"tokens":["a"]}`,
			"", `{"url":"https://x.test","headers":{"Authorization":"[REDACTED]","X-Trace":"1"},"password":"[REDACTED]","apiKey":"[REDACTED]","tokens":["a"]}`},
		{"nested under secret key", "", `{"credentials":{"user":"bob","pass":"x"},"n":null,"ok":true}`,
			"", `{"credentials":{"user":"[REDACTED]","pass":"[REDACTED]"},"n":null,"ok":true}`},
		{"title redacted", "export GITHUB_TOKEN=" + ghToken, `{"command":"true"}`,
			"export GITHUB_TOKEN=[REDACTED]", `{"command":"true"}`},
		{"not json falls back to text", "", `password=hunter2 {`, "", `password=[REDACTED] {`},
		{"trailing data falls back to text", "", `{"a":"b"} token=abc`, "", `{"a":"b"} token=[REDACTED]`},
		{"html chars not escaped", "", `{"command":"echo '<a&b>' password=x"}`, "", `{"command":"echo '<a&b>' password=[REDACTED]"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := protocol.ToolCall{ToolCallID: "c1", Tool: "bash", Kind: protocol.KindExecute, Title: tc.title,
				RawInput: json.RawMessage(tc.raw), Locations: []protocol.Location{{Path: "a.go"}}}
			orig := string(in.RawInput)
			got := ToolCall(in)
			assert.Equal(t, tc.wantTitle, got.Title)
			assert.Equal(t, tc.wantRaw, string(got.RawInput))
			assert.Equal(t, "c1", got.ToolCallID)
			assert.Equal(t, []protocol.Location{{Path: "a.go"}}, got.Locations)
			assert.Equal(t, orig, string(in.RawInput), "input must not be modified")
			if json.Valid([]byte(tc.raw)) {
				assert.True(t, json.Valid(got.RawInput), "valid JSON stays valid")
			}
			// The copy shares no memory with the original.
			if len(got.RawInput) > 0 {
				got.RawInput[0] = '#'
				assert.Equal(t, orig, string(in.RawInput))
			}
		})
	}
}

func TestToolCallNilInput(t *testing.T) {
	got := ToolCall(protocol.ToolCall{Tool: "read"})
	assert.Nil(t, got.RawInput)
	assert.Nil(t, got.Locations)
}

// Redaction is idempotent and never leaves a known token in place, whatever
// surrounds it.
func TestStringProperties(t *testing.T) {
	frags := []string{"password=", "token: ", "Authorization: Bearer ", "Bearer ", "--token ", "\"", "'", "\\\"",
		" ", "\n", "=", ":", "abc", "hunter2", "[REDACTED]", "]", "}", "https://u:", "@h", ghToken, openaiKey, awsKeyID,
		"-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", "&", ";", "GITHUB_TOKEN="}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(frags), 0, 12).Draw(t, "parts")
		s := strings.Join(parts, "")
		once := String(s)
		require.Equal(t, once, String(once), "idempotent")
		for _, tok := range []string{ghToken, awsKeyID} {
			require.NotContains(t, once, tok)
		}
	})
}

// Patterns compile lazily, on first use; a bad one must fail here, not
// panic in a running peer.
func TestEveryPatternCompiles(t *testing.T) {
	require.NotNil(t, secretKey())
	for i, r := range rules {
		require.NotNil(t, r.re(), "rule %d", i)
	}
}

// JSON's shortcut for inputs without a hint gives what the walk gives.
func TestJSONShortcutMatchesWalk(t *testing.T) {
	for _, in := range []string{
		`{"command":"git status"}`, `{"command":"go test ./..."}`, `{"path":"/repo/main.go","line":3}`,
		`{"api_key":"x"}`, `{"API_KEY":12345}`, `{"headers":{"Cookie":"a=b"}}`, `{"cmd":"curl -H 'Authorization: Bearer abcdefgh12'"}`,
		`{"p\u0061ssword":"x"}`, `{"k":"\u0073k-0123456789abcdef0123"}`, `{"Tok\u212Aen":"x"}`, `{"\u212Aey":"x"}`,
		`not json`, `{"a":1} trailing`, `[1,"two",null,true]`, `"just text"`, `{"url":"https://u:pw@host/x"}`,
	} {
		assert.Equal(t, string(walkJSON(json.RawMessage(in))), string(JSON(json.RawMessage(in))), in)
	}
}

// Every key secretKey masks whole holds a hint, so that JSON's shortcut
// never skips one.
func TestSecretKeysHaveHints(t *testing.T) {
	for _, k := range []string{"password", "db_passwd", "passphrase", "client-secret", "GITHUB_TOKEN", "api_key", "apikey", "api-key",
		"accesskey", "access_key_id", "private-key", "credentials", "credential", "Authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"} {
		require.True(t, secretKey().MatchString(k), k)
		assert.True(t, hasHint([]byte(k)), k)
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"command":"git status"}`, `{"api_key":"x"}`, `{"\u212Aey":"v"}`, `{"a":"sk-0123456789abcdef0123"}`, `[`, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, want := JSON(raw), walkJSON(raw)
		if string(got) != string(want) {
			t.Fatalf("JSON(%q) = %q, the walk gives %q", raw, got, want)
		}
	})
}

// TestToolCallBoundsLargeInput: the audit keeps a large input as its size,
// hash and head, redacted; a small one whole.
func TestToolCallBoundsLargeInput(t *testing.T) {
	pad := strings.Repeat("é", 100<<10) // 200 KiB of two-byte runes
	raw := json.RawMessage(`{"command":"curl -H 'Authorization: Bearer sk-abcdefghijklmnopqrstuvwx' x","pad":"` + pad + `"}`)
	got := ToolCall(protocol.ToolCall{Tool: "bash", Title: strings.Repeat("t", 5000), RawInput: raw})
	var s Summary
	if err := json.Unmarshal(got.RawInput, &s); err != nil {
		t.Fatalf("summary %s: %v", got.RawInput, err)
	}
	redacted := JSON(raw)
	sum := sha256.Sum256(redacted)
	assert.Equal(t, len(redacted), s.Truncated.Bytes)
	assert.Equal(t, hex.EncodeToString(sum[:]), s.Truncated.SHA256)
	assert.NotContains(t, s.Truncated.Head, "sk-abcdefghijklmnopqrstuvwx")
	assert.Contains(t, s.Truncated.Head, Mask)
	assert.True(t, utf8.ValidString(s.Truncated.Head) && len(s.Truncated.Head) <= 64<<10 && len(s.Truncated.Head) > 64<<10-2)
	assert.Less(t, len(got.RawInput), MaxInput)
	assert.Len(t, got.Title, 4<<10)

	small := json.RawMessage(`{"command":"ls","pad":"` + strings.Repeat("x", 100<<10) + `"}`)
	assert.Equal(t, string(small), string(ToolCall(protocol.ToolCall{RawInput: small}).RawInput))
}
