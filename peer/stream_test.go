package peer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAll feeds input to a Stream and returns the messages it accepted and
// the error responses it wrote on its own.
func readAll(t testing.TB, input string, framing Framing, maxFrame int) (accepted []string, written []map[string]any, outFraming Framing) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(input), &out, nil, framing, maxFrame)
	for {
		m, err := s.ReadMessage()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("ReadMessage: %v", err)
			}
			break
		}
		accepted = append(accepted, string(m.Frame))
	}
	return accepted, decodeFrames(t, out.Bytes(), s.Framing()), s.Framing()
}

func decodeFrames(t testing.TB, b []byte, f Framing) []map[string]any {
	var msgs []map[string]any
	r := bufio.NewReader(bytes.NewReader(b))
	for {
		var body []byte
		if f == FramingNDJSON {
			line, err := r.ReadBytes('\n')
			if err == io.EOF {
				return msgs
			}
			require.NoError(t, err)
			body = line
		} else {
			line, err := r.ReadString('\n')
			if err == io.EOF {
				return msgs
			}
			require.NoError(t, err)
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length:")))
			require.NoError(t, err, "header %q", line)
			blank, _ := r.ReadString('\n')
			require.Equal(t, "\r\n", blank)
			body = make([]byte, n)
			_, err = io.ReadFull(r, body)
			require.NoError(t, err)
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(body, &m), "peer wrote %q", body)
		msgs = append(msgs, m)
	}
}

func lsp(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

const okReq = `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`

func TestStreamBadFrames(t *testing.T) {
	cases := []struct {
		name     string
		ndjson   string // frame body for NDJSON (one line)
		wantCode float64
		wantID   any
	}{
		{"not json", `{"jsonrpc":`, -32700, nil},
		{"invalid utf8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\xff\"}", -32700, nil},
		{"batch", `[` + okReq + `]`, -32600, nil},
		{"empty batch", `[]`, -32600, nil},
		{"scalar", `42`, -32600, nil},
		{"null", `null`, -32600, nil},
		{"padded batch", " \t[1]", -32600, nil},
		{"padded scalar", ` "x"`, -32600, nil},
		{"empty object", `{}`, -32600, nil},
		{"no jsonrpc", `{"id":1,"method":"x"}`, -32600, float64(1)},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"x"}`, -32600, float64(1)},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"x"}`, -32600, nil},
		{"negative id", `{"jsonrpc":"2.0","id":-1,"method":"x"}`, -32600, nil},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, -32600, nil},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"x"}`, -32600, nil},
		{"method not string", `{"jsonrpc":"2.0","id":2,"method":5}`, -32600, float64(2)},
		{"empty method", `{"jsonrpc":"2.0","id":2,"method":""}`, -32600, float64(2)},
		{"params scalar", `{"jsonrpc":"2.0","id":2,"method":"x","params":3}`, -32600, float64(2)},
		{"request and response", `{"jsonrpc":"2.0","id":2,"method":"x","result":1}`, -32600, float64(2)},
		{"neither", `{"jsonrpc":"2.0","id":3}`, -32600, float64(3)},
		{"response without id", `{"jsonrpc":"2.0","result":1}`, -32600, nil},
		{"deep nesting", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), -32700, nil},
	}
	for _, c := range cases {
		for _, f := range []Framing{FramingNDJSON, FramingLSP} {
			t.Run(c.name+"/"+string(f), func(t *testing.T) {
				in := c.ndjson + "\n" + okReq + "\n"
				if f == FramingLSP {
					in = lsp(c.ndjson) + lsp(okReq)
				}
				mode := FramingNDJSON // auto would read a leading scalar as LSP
				if f == FramingLSP {
					mode = FramingAuto
				}
				acc, out, got := readAll(t, in, mode, 0)
				if f == FramingLSP {
					assert.Equal(t, FramingLSP, got)
				}
				require.Len(t, out, 1, "one error response")
				e := out[0]["error"].(map[string]any)
				assert.Equal(t, c.wantCode, e["code"])
				assert.Equal(t, c.wantID, out[0]["id"])
				assert.Equal(t, []string{okReq}, acc, "the next frame is still served")
			})
		}
	}
}

// An LSP body may start with whitespace: it is still one JSON object.
func TestStreamLSPBodyWithLeadingSpace(t *testing.T) {
	acc, out, _ := readAll(t, lsp(" \r\n"+okReq), FramingLSP, 0)
	assert.Empty(t, out)
	assert.Equal(t, []string{okReq}, acc)
}

func TestStreamLSPResync(t *testing.T) {
	cases := []struct {
		name  string
		input string
		codes []float64
	}{
		{"missing content-length", "Content-Type: x\r\n\r\n" + lsp(okReq), []float64{-32700}},
		{"bad content-length", "Content-Length: abc\r\n\r\n" + lsp(okReq), []float64{-32700}},
		{"negative content-length", "Content-Length: -5\r\n\r\n" + lsp(okReq), []float64{-32700}},
		{"short content-length", "Content-Length: 10\r\n\r\n" + okReq + "\r\n" + lsp(okReq), []float64{-32700, -32700}},
		{"stray text", "hello there\r\n" + lsp(okReq), []float64{-32700}},
		{"huge frame", lsp(`{"x":"`+strings.Repeat("a", 200)+`"}`) + lsp(okReq), []float64{-32600}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			acc, out, _ := readAll(t, c.input, FramingLSP, 100)
			var codes []float64
			for _, m := range out {
				codes = append(codes, m["error"].(map[string]any)["code"].(float64))
			}
			assert.Equal(t, c.codes, codes)
			assert.Equal(t, []string{okReq}, acc)
		})
	}
}

func TestStreamNDJSON(t *testing.T) {
	t.Run("blank lines and CRLF", func(t *testing.T) {
		acc, out, f := readAll(t, "\n\r\n  "+okReq+"\r\n\n"+okReq, FramingAuto, 0)
		assert.Equal(t, FramingNDJSON, f)
		assert.Empty(t, out)
		assert.Equal(t, []string{okReq, okReq}, acc)
	})
	t.Run("oversize line skipped", func(t *testing.T) {
		acc, out, _ := readAll(t, `{"a":"`+strings.Repeat("x", 200000)+`"}`+"\n"+okReq+"\n", FramingNDJSON, 1000)
		require.Len(t, out, 1)
		assert.Equal(t, float64(-32600), out[0]["error"].(map[string]any)["code"])
		assert.Equal(t, []string{okReq}, acc)
	})
}

func TestStreamWritesInItsFraming(t *testing.T) {
	for _, f := range []Framing{FramingLSP, FramingNDJSON} {
		var out bytes.Buffer
		s := NewStream(strings.NewReader(""), &out, nil, f, 0)
		require.NoError(t, s.WriteResult(jsonrpc2.ID{Num: 1}, nil))
		want := `{"id":1,"result":null,"jsonrpc":"2.0"}`
		if f == FramingLSP {
			want = lsp(want)
		} else {
			want += "\n"
		}
		assert.Equal(t, want, out.String())
	}
}

// A result that holds line breaks (a json.RawMessage) is still written on
// one line: it would end an NDJSON frame early.
func TestStreamWritesResultOnOneLine(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, nil, FramingNDJSON, 0)
	require.NoError(t, s.WriteResult(jsonrpc2.ID{Num: 1}, json.RawMessage("{\"a\":\r\n \"x\\ny\"}")))
	require.NoError(t, s.WriteResult(jsonrpc2.ID{Str: "b", IsString: true}, json.RawMessage(`{"a":2}`)))
	assert.Equal(t, "{\"id\":1,\"result\":{\"a\":\"x\\ny\"},\"jsonrpc\":\"2.0\"}\n{\"id\":\"b\",\"result\":{\"a\":2},\"jsonrpc\":\"2.0\"}\n", out.String())
}

// The replies are the bytes jsonrpc2's own types write, so every client
// that read them before reads them now.
func TestStreamRepliesMatchJSONRPC2(t *testing.T) {
	for _, id := range []jsonrpc2.ID{{Num: 0}, {Num: 1<<64 - 1}, {Str: "x\"<y>", IsString: true}} {
		var out bytes.Buffer
		s := NewStream(strings.NewReader(""), &out, nil, FramingNDJSON, 0)
		v := map[string]any{"reply": "once", "n": 1.5, "s": "<&>"}
		require.NoError(t, s.WriteResult(id, v))
		resp := &jsonrpc2.Response{ID: id}
		require.NoError(t, resp.SetResult(v))
		want, err := json.Marshal(resp)
		require.NoError(t, err)
		assert.Equal(t, string(want)+"\n", out.String())

		out.Reset()
		e := &jsonrpc2.Error{Code: -32602, Message: "invalid params: /x"}
		e.SetError(map[string]any{"causes": []string{"a"}})
		require.NoError(t, s.WriteErrorReply(id, e))
		want, err = json.Marshal(&jsonrpc2.Response{ID: id, Error: e})
		require.NoError(t, err)
		assert.Equal(t, string(want)+"\n", out.String())

		body, err := encodeRequest(&id, "permission/ask", v)
		require.NoError(t, err)
		req := &jsonrpc2.Request{Method: "permission/ask", ID: id}
		require.NoError(t, req.SetParams(v))
		want, err = json.Marshal(req)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(body))
	}
	body, err := encodeRequest(nil, "$/cancelRequest", map[string]string{"id": "ask-1"})
	require.NoError(t, err)
	req := &jsonrpc2.Request{Method: "$/cancelRequest", Notif: true}
	require.NoError(t, req.SetParams(map[string]string{"id": "ask-1"}))
	want, err := json.Marshal(req)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(body))
}

// FuzzStream: no input makes the stream panic, and everything it writes is
// a well-framed JSON-RPC error response.
func FuzzStream(f *testing.F) {
	for _, s := range []string{okReq + "\n", lsp(okReq), "Content-Length: 5\r\n\r\n{}", "[1,2]\n", "\xff\xfe\n", "Content-Length: 99999999\r\n\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		var out bytes.Buffer
		s := NewStream(strings.NewReader(input), &out, nil, FramingAuto, 4096)
		for i := 0; i < 10000; i++ {
			m, err := s.ReadMessage()
			if err != nil {
				break
			}
			if !json.Valid(m.Frame) || (m.Req == nil) == (m.Resp == nil) {
				t.Fatalf("accepted %q as %+v", m.Frame, m)
			}
			if m.Req != nil && m.Req.Params != nil && !json.Valid(*m.Req.Params) {
				t.Fatalf("params %q of %q", *m.Req.Params, m.Frame)
			}
		}
		for _, m := range decodeFrames(t, out.Bytes(), s.Framing()) {
			if _, ok := m["error"]; !ok {
				t.Fatalf("stream wrote a non-error message: %v", m)
			}
		}
	})
}

type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := int64(len(p))
	if k > e.n {
		k = e.n
	}
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return int(k), nil
}

// An LSP header line is bounded: a 256 MiB line without a newline is not
// held in memory.
func TestLSPHeaderLineBounded(t *testing.T) {
	const size = 256 << 20
	r := io.MultiReader(strings.NewReader("Content-Length: 2\r\n\r\n{}"), &endless{n: size})
	var out bytes.Buffer
	s := NewStream(r, &out, nil, FramingLSP, 0)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := s.ReadMessage() // answers the {} frame, then reads the huge line
	runtime.ReadMemStats(&after)
	t.Logf("err=%v TotalAlloc grew by %d MiB; out=%q", err, (after.TotalAlloc-before.TotalAlloc)>>20, clip(out.String(), 300))
	if after.TotalAlloc-before.TotalAlloc > 3*DefaultMaxFrame {
		t.Fatalf("reading one newline-less header line allocated %d MiB (limit is %d MiB per frame)", (after.TotalAlloc-before.TotalAlloc)>>20, DefaultMaxFrame>>20)
	}
}
