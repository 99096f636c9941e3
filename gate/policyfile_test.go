package gate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPolicyFileNotRegular: a policy that is not a regular file (a link to
// a device, a FIFO, stdin) is refused with one sentence naming the file,
// without reading it (a FIFO with no writer would block forever, /dev/zero
// never ends). /dev/stdin is covered by the e2e test, whose stdin is a pipe.
func TestPolicyFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cases := map[string]struct{ target, want string }{
		"symlink to /dev/zero": {"/dev/zero", "is a device, not a regular file"},
		"FIFO":                 {fifo, "is a FIFO, not a regular file"},
		"directory":            {dir, "is a directory, not a regular file"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			link := filepath.Join(t.TempDir(), ".perm-peer", "policy.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
			require.NoError(t, os.Symlink(c.target, link))
			p, err := LoadPolicy("", link, dir)
			require.Error(t, err)
			assert.Nil(t, p)
			assert.Contains(t, err.Error(), "policy "+link+" ")
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestPolicyFileSizeCap: a regular file over MaxPolicyBytes is refused
// before it is parsed; one at the cap is read.
func TestPolicyFileSizeCap(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxPolicyBytes+1)) // sparse, NUL bytes
	require.NoError(t, f.Close())
	_, err = LoadPolicy(big, "", dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "policy "+big+" is larger than 16777216 bytes")

	// Exactly at the cap: a valid policy padded with spaces is accepted.
	body := `{"deny":["Bash(git push *)"]}`
	require.NoError(t, os.WriteFile(big, []byte(body+strings.Repeat(" ", MaxPolicyBytes-len(body))), 0o600))
	p, err := LoadPolicy(big, "", dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"Bash(git push *)"}, p.User.Deny)
}

// TestPolicyDuplicateKeys: a repeated key at any depth, or one differing
// only in case (encoding/json folds it onto the same field), is an error at
// the repeat's line:col naming the member's pointer, never "last one wins".
func TestPolicyDuplicateKeys(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"deny twice", `{"deny":["Bash(git status)"],"deny":[]}`,
			[]string{"p.json:1:30: /deny: the key \"deny\" appears twice (first at 1:2)"}},
		{"mode twice", "{\n  \"mode\": \"ask\",\n  \"mode\": \"full\"\n}",
			[]string{"p.json:3:3: /mode: the key \"mode\" appears twice (first at 2:3)"}},
		{"case variant", `{"deny":["Bash(rm *)"],"Deny":[]}`,
			[]string{"p.json:1:24: /deny: the key \"Deny\" differs only in case from \"deny\" at 1:2"}},
		{"Kelvin sign folds to k", "{\"askTimeoutMs\":1,\"as\u212aTimeoutMs\":2}",
			[]string{"/askTimeoutMs: the key \"as\u212aTimeoutMs\" differs only in case"}},
		{"nested", `{"judge":{"endpoint":"http://a","model":"m","endpoint":"http://b"}}`,
			[]string{"p.json:1:45: /judge/endpoint: the key \"endpoint\" appears twice"}},
		{"escaped spelling", `{"deny":[],"d\u0065ny":["Bash(ls)"]}`,
			[]string{"/deny: the key \"deny\" appears twice"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			f := writeFile(t, dir, "p.json", c.body)
			for _, load := range []func() (*Policy, error){
				func() (*Policy, error) { return LoadPolicy(f, "", dir) },
				func() (*Policy, error) { return LoadPolicy("", f, dir) },
			} {
				p, err := load()
				require.Error(t, err)
				assert.Nil(t, p)
				for _, w := range c.want {
					assert.Contains(t, err.Error(), w)
				}
			}
		})
	}
	// The same keys in different objects are not repeats.
	dir := t.TempDir()
	f := writeFile(t, dir, "p.json", `{"judge":{"endpoint":"http://a","model":"m"},"deny":["Bash(model)"]}`)
	_, err := LoadPolicy(f, "", dir)
	require.NoError(t, err)
}

// TestPolicyInvalidUTF8: a byte that is not UTF-8 is an error at its
// line:col naming the pointer of the value holding it; encoding/json would
// have turned it into U+FFFD, silently changing the rule.
func TestPolicyInvalidUTF8(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "p.json", "{\n  \"deny\": [\"Bash(ls)\", \"Bash(rm caf\xe9)\"]\n}")
	_, err := LoadPolicy(f, "", dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "p.json:2:36: /deny/1: not valid UTF-8")

	f = writeFile(t, dir, "k.json", "{\"d\xe9ny\": []}")
	_, err = LoadPolicy(f, "", dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "k.json:1:4: /d?ny: not valid UTF-8")
}

// TestPolicyTypeErrorNamesPointer (L2): a number the schema accepts but the
// field cannot hold is reported at its pointer in the peer's words.
func TestPolicyTypeErrorNamesPointer(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "p.json", "{\n  \"askTimeoutMs\": 1e30\n}")
	_, err := LoadPolicy(f, "", dir)
	require.Error(t, err)
	assert.Equal(t, "policy "+f+":2:19: /askTimeoutMs: 1e30 is not an integer from -9223372036854775808 to 9223372036854775807", err.Error())

	f = writeFile(t, dir, "j.json", `{"judge":{"endpoint":"http://a","model":"m","timeoutMs":1e300}}`)
	_, err = LoadPolicy(f, "", dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/judge/timeoutMs: 1e300 is not an integer")
	assert.NotContains(t, err.Error(), "Go struct")
}

// FuzzPolicyText: the policy text check never panics or hangs on any
// bytes; it refuses every text that is not UTF-8; and a well-formed object
// it accepts is refused once any of its keys is repeated in it.
func FuzzPolicyText(f *testing.F) {
	f.Add([]byte(`{"deny":["Bash(git push *)"],"mode":"ask"}`))
	f.Add([]byte(`{"judge":{"endpoint":"http://a","model":"m"},"deny":[]}`))
	f.Add([]byte("{\"deny\":[\"caf\xe9\"]}"))
	f.Add([]byte(`{"a":{"b":[{"c":1,"C":2}]}}`))
	f.Add([]byte(`[[[{"x":1}]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := checkPolicyText("p.json", data)
		if !utf8.Valid(data) {
			if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
				t.Fatalf("text that is not UTF-8 passed: %v", err)
			}
			return
		}
		if err != nil || !json.Valid(data) {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil || len(obj) == 0 {
			return
		}
		for k := range obj {
			key, _ := json.Marshal(k)
			doubled := append(append([]byte{'{'}, key...), []byte(`:0,`)...)
			doubled = append(doubled, bytes.TrimLeft(data, " \t\r\n")[1:]...)
			if checkPolicyText("p.json", doubled) == nil {
				t.Fatalf("the key %s repeated in %q passed", key, doubled)
			}
			break
		}
	})
}
