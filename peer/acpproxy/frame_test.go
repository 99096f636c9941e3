package acpproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/jsonkey"
)

func TestParseEnvelope(t *testing.T) {
	cases := []struct {
		line    string
		method  string
		request bool
		notif   bool
		resp    bool
		bad     bool
	}{
		{line: `{"jsonrpc":"2.0","id":1,"method":"fs/write_text_file","params":{}}`, method: "fs/write_text_file", request: true},
		{line: `{"jsonrpc":"2.0","method":"session/update","params":{}}`, method: "session/update", notif: true},
		{line: `{"jsonrpc":"2.0","id":"a","result":null}`, resp: true},
		{line: `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}`, resp: true},
		// an escaped key is the key JavaScript reads
		{line: `{"jsonrpc":"2.0","id":1,"meth\u006fd":"terminal/create"}`, method: "terminal/create", request: true},
		// "METHOD" is not "method" to JavaScript or serde: no method here
		{line: `{"jsonrpc":"2.0","id":1,"METHOD":"terminal/create","result":1}`, resp: true},
		// the same member in two letter cases: one reader may take either
		{line: `{"jsonrpc":"2.0","id":1,"method":"_x/a","Method":"fs/write_text_file"}`, bad: true},
		{line: `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, bad: true},
		{line: `{"id":1,"id":2,"result":{}}`, bad: true},
		{line: `not json`, bad: true},
		{line: `[{"jsonrpc":"2.0","id":1,"method":"fs/write_text_file"}]`, bad: true},
		{line: `{"jsonrpc":"2.0","id":1,"method":"x"} {"id":2}`, bad: true},
		{line: `{"jsonrpc":"2.0","id":1,"method":7}`, bad: true},
		{line: `{"jsonrpc":"2.0","id":1,"method":"x"`, bad: true},
	}
	for _, c := range cases {
		e, err := parseEnvelope([]byte(c.line))
		if c.bad {
			if err == nil {
				t.Errorf("%s: parsed, want an error", c.line)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if e.method != c.method || e.isRequest() != c.request || e.isNotification() != c.notif || e.isResponse() != c.resp {
			t.Errorf("%s: got method %q request %v notification %v response %v", c.line, e.method, e.isRequest(), e.isNotification(), e.isResponse())
		}
	}
}

func TestRepeatedKey(t *testing.T) {
	cases := map[string]string{
		`{"path":"/a","content":"x"}`:             "",
		`{"path":"/a","PATH":"/b"}`:               "PATH",
		`{"a":{"path":"/a","Path":"/b"}}`:         "Path",
		`{"a":[{"x":1},{"x":2}],"b":{"x":1}}`:     "",
		`{"toolCall":{"rawInput":{"c":1,"c":2}}}`: "c",
		`{"a":[1,{"k":1,"K":[]}],"b":2}`:          "K",
		`{"k":{"k":{"k":1}}}`:                     "",
	}
	for in, want := range cases {
		if got := jsonkey.Repeated(json.RawMessage(in)); got != want {
			t.Errorf("jsonkey.Repeated(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 100)
	lr := newLineReader(strings.NewReader("a\n"+long+"\nb\r\n\nlast"), 50)
	var got []string
	for {
		line, err := lr.readLine()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errLineTooLong) {
			got = append(got, "<too long>")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	want := []string{"a", "<too long>", "b\r", "", "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines = %q, want %q", got, want)
	}
}

// FuzzEnvelope: what parseEnvelope accepts is one JSON object whose method
// is the one an exact-key reader (JavaScript, serde) sees.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"fs/write_text_file","params":{"path":"/x"}}`,
		`{"id":1,"result":{}}`, `{"method":"a","Method":"b"}`, `{"meth\u006fd":"x"}`, `[1]`, `{}`, `{"id":null,"method":"m"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := parseEnvelope(line)
		if err != nil {
			return
		}
		if !json.Valid(line) || !bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte("{")) {
			t.Fatalf("accepted a line that is not one JSON object: %q", line)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("accepted %q, which encoding/json rejects: %v", line, err)
		}
		raw, has := m["method"]
		if has != e.hasMethod {
			t.Fatalf("%q: method present %v, envelope says %v", line, has, e.hasMethod)
		}
		if has {
			var s string
			if json.Unmarshal(raw, &s) != nil || s != e.method {
				t.Fatalf("%q: method %q, envelope says %q", line, s, e.method)
			}
		}
	})
}
