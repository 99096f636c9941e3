package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// frame is an LSP frame of body (input only: the expected replies are
// spelled out by hand).
func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

func TestServe(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":7,"method":"session/requestPermission","params":{"sessionId":"s","toolCall":{"tool":"bash"}}}`
	cases := []struct {
		name, in, want string
	}{
		{"ndjson request", req + "\n", `{"jsonrpc":"2.0","id":7,"result":{"reply":"once"}}` + "\n"},
		{"ndjson string id, blank lines, notification skipped", "\n\n" + `{"jsonrpc":"2.0","method":"initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":"a","method":"x"}` + "\n", `{"jsonrpc":"2.0","id":"a","result":{"reply":"once"}}` + "\n"},
		{"ndjson garbage skipped", "{nope\n" + req + "\n", `{"jsonrpc":"2.0","id":7,"result":{"reply":"once"}}` + "\n"},
		{"lsp request", frame(req),
			"Content-Length: 50\r\n\r\n" + `{"jsonrpc":"2.0","id":7,"result":{"reply":"once"}}`},
		{"lsp two frames, extra header", strings.Replace(frame(req), "\r\n", "\r\nContent-Type: x\r\n", 1) + frame(req),
			strings.Repeat("Content-Length: 50\r\n\r\n"+`{"jsonrpc":"2.0","id":7,"result":{"reply":"once"}}`, 2)},
		{"empty input", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := serve(strings.NewReader(c.in), &out, nil); err != nil {
				t.Fatal(err)
			}
			if out.String() != c.want {
				t.Fatalf("got %q, want %q", out.String(), c.want)
			}
		})
	}
}

func TestServeBadContentLength(t *testing.T) {
	var out bytes.Buffer
	if err := serve(strings.NewReader("Content-Length: -1\r\n\r\n{}"), &out, nil); err == nil {
		t.Fatal("a negative Content-Length must end the floor with an error")
	}
}

// With --commit-db every request is committed, in order, before its reply.
func TestServeCommitsBeforeEachReply(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "c.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	commit := commitOne(db)
	var out bytes.Buffer
	replies := 0
	rec := func() error {
		if strings.Count(out.String(), "\n") != replies {
			return fmt.Errorf("a reply was written before its commit")
		}
		replies++
		return commit()
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"x"}` + "\n" + `{"jsonrpc":"2.0","method":"n"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"x"}` + "\n"
	if err := serve(strings.NewReader(in), &out, rec); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\n"); got != 2 {
		t.Fatalf("%d replies, want 2", got)
	}
	err = db.View(func(tx *bolt.Tx) error {
		if n := tx.Bucket([]byte("records")).Stats().KeyN; n != 2 {
			return fmt.Errorf("%d records, want 2 (one per request, none per notification)", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Built with -tags validate, each request's method and raw params reach the
// validator, and the reply is the same.
func TestServeValidatesParams(t *testing.T) {
	var got []string
	validateParams = func(method string, params json.RawMessage) error {
		got = append(got, method+" "+string(params))
		return errors.New("invalid") // the floor answers anyway
	}
	defer func() { validateParams = nil }()
	in := `{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":[1]}}` + "\n" + `{"jsonrpc":"2.0","method":"n","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"b"}` + "\n"
	var out bytes.Buffer
	if err := serve(strings.NewReader(in), &out, nil); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{"reply":"once"}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{"reply":"once"}}` + "\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
	if strings.Join(got, "|") != `a {"x":[1]}|n {}|b ` {
		t.Fatalf("validated %q", got)
	}
}
