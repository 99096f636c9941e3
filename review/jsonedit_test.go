package review

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendRuleKeepsTheUsersText(t *testing.T) {
	for _, c := range []struct{ name, in, key, want string }{
		{"empty file", "", "allow", "{\n  \"allow\": [\n    \"Bash(npm test *)\"\n  ]\n}\n"},
		{"multi-line list", "{\n  \"mode\": \"ask\",\n  \"allow\": [\n    \"Bash(go test *)\"\n  ],\n  \"deny\": []\n}\n", "allow",
			"{\n  \"mode\": \"ask\",\n  \"allow\": [\n    \"Bash(go test *)\",\n    \"Bash(npm test *)\"\n  ],\n  \"deny\": []\n}\n"},
		{"one-line list", `{"allow":["Read(src/**)", "Bash(make)"]}`, "allow", `{"allow":["Read(src/**)", "Bash(make)", "Bash(npm test *)"]}`},
		{"empty list", "{\"deny\": [ ], \"allow\" : []}", "allow", "{\"deny\": [ ], \"allow\" : [\"Bash(npm test *)\"]}"},
		{"absent key", "{\n\t\"mode\": \"auto\",\n\t\"tier\": \"standard\"\n}", "deny",
			"{\n\t\"mode\": \"auto\",\n\t\"tier\": \"standard\",\n\t\"deny\": [\"Bash(npm test *)\"]\n}"},
		{"empty object", "{}\n", "ask", "{\n  \"ask\": [\"Bash(npm test *)\"]\n}\n"},
		{"odd spacing kept", "{ \"judge\" : {\"model\":\"m\" ,\"endpoint\":\"http://x\"},\"allow\":[\"A\"\n,\"B\"] }", "allow",
			"{ \"judge\" : {\"model\":\"m\" ,\"endpoint\":\"http://x\"},\"allow\":[\"A\"\n,\"B\",\"Bash(npm test *)\"] }"},
	} {
		got, err := appendRule([]byte(c.in), c.key, "Bash(npm test *)")
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, string(got), c.name)
		assert.True(t, json.Valid(got), c.name)
	}
	for _, bad := range []string{"[1]", "{\"allow\": \"x\"}", "{\"allow\": [1,}", "nope"} {
		_, err := appendRule([]byte(bad), "allow", "X")
		assert.Error(t, err, bad)
	}
}

func TestLineDiff(t *testing.T) {
	d := lineDiff([]byte("{\n  \"allow\": [\n    \"A\"\n  ]\n}\n"), []byte("{\n  \"allow\": [\n    \"A\",\n    \"B\"\n  ]\n}\n"))
	assert.Equal(t, "     1    {\n     2      \"allow\": [\n     3  -     \"A\"\n     3  +     \"A\",\n     4  +     \"B\"\n     5      ]\n     6    }\n", d)
}

func TestRemoveElementKeepsTheRest(t *testing.T) {
	in := "{\n  \"hooks\": {\"x\": 1},\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test:*)\",\n      \"Bash(make:*)\",\n      \"WebFetch(domain:x.dev)\"\n    ],\n    \"deny\": []\n  }\n}\n"
	for idx, want := range map[int]string{
		0: "{\n  \"hooks\": {\"x\": 1},\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(make:*)\",\n      \"WebFetch(domain:x.dev)\"\n    ],\n    \"deny\": []\n  }\n}\n",
		1: "{\n  \"hooks\": {\"x\": 1},\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test:*)\",\n      \"WebFetch(domain:x.dev)\"\n    ],\n    \"deny\": []\n  }\n}\n",
		2: "{\n  \"hooks\": {\"x\": 1},\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test:*)\",\n      \"Bash(make:*)\"\n    ],\n    \"deny\": []\n  }\n}\n",
	} {
		got, err := removeElement([]byte(in), []string{"permissions", "allow"}, idx)
		require.NoError(t, err)
		assert.Equal(t, want, string(got), idx)
	}
	got, err := removeElement([]byte(`{"permissions":{"allow":["A"]}}`), []string{"permissions", "allow"}, 0)
	require.NoError(t, err)
	assert.Equal(t, `{"permissions":{"allow":[]}}`, string(got))
	for _, c := range []struct {
		doc string
		idx int
	}{{`{"permissions":{"allow":["A"]}}`, 1}, {`{"permissions":{}}`, 0}, {`{"permissions":{"allow":{}}}`, 0}} {
		_, err := removeElement([]byte(c.doc), []string{"permissions", "allow"}, c.idx)
		assert.Error(t, err, c.doc)
	}
}
