package peer

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/perm-peer/perm-peer/protocol"
)

// Message is one valid JSON-RPC message off the wire: a request or
// notification (Req) or a response (Resp). A request's Params are the
// frame's own bytes, never re-encoded: a repeated key in them reaches the
// gate and the audit as it arrived.
type Message struct {
	Req  *jsonrpc2.Request
	Resp *jsonrpc2.Response
	// Frame is the message's bytes as they arrived.
	Frame []byte
	// Size is the frame's length in bytes.
	Size int
}

// envelope is the members of a message's top-level object, as raw bytes.
type envelope struct {
	jsonrpc, id, method, params, result, errObj []byte
	dup                                         string // a member that appears twice
}

// decodeMessage decodes a frame once: it accepts exactly one JSON-RPC 2.0
// request, notification or response object (batches are not supported).
// A bad frame is an *errFrame carrying the request id when it can be read.
func decodeMessage(frame []byte) (Message, error) {
	if !utf8.Valid(frame) {
		return Message{}, &errFrame{code: protocol.CodeParseError, msg: "parse error: invalid UTF-8", askID: skimAskID(frame)}
	}
	if !json.Valid(frame) {
		return Message{}, &errFrame{code: protocol.CodeParseError, msg: "parse error: not valid JSON", askID: skimAskID(frame)}
	}
	frame = bytes.TrimLeft(frame, " \t\r\n")
	switch frame[0] { // valid JSON: not empty
	case '[':
		return Message{}, &errFrame{code: protocol.CodeInvalidRequest, msg: "invalid request: batches are not supported"}
	case '{':
	default:
		return Message{}, &errFrame{code: protocol.CodeInvalidRequest, msg: "invalid request: not a JSON object"}
	}
	env := splitEnvelope(frame)
	id, idOK := parseID(env.id)
	var idRaw json.RawMessage
	if env.id != nil && idOK {
		idRaw = env.id
	}
	hasResult, hasError := env.result != nil, env.errObj != nil
	bad := func(msg string) error {
		e := &errFrame{code: protocol.CodeInvalidRequest, msg: "invalid request: " + msg, id: idRaw}
		if id.IsString && strings.HasPrefix(id.Str, askPrefix) && (env.method == nil || hasResult || hasError) {
			// an answer to one of our asks: it ends that ask, and the
			// error about it is not a response to the editor's request
			e.askID, e.id = id.Str, nil
		}
		return e
	}
	switch {
	case env.dup != "":
		return Message{}, bad(`the member "` + env.dup + `" appears twice`)
	case string(env.jsonrpc) != `"2.0"`:
		return Message{}, bad(`"jsonrpc" must be "2.0"`)
	case !idOK:
		return Message{}, bad(`"id" must be a string or a non-negative integer`)
	case env.method != nil:
		name, ok := jsonString(env.method)
		if !ok || name == "" {
			return Message{}, bad(`"method" must be a non-empty string`)
		}
		if hasResult || hasError {
			return Message{}, bad("a message cannot be both a request and a response")
		}
		req := &jsonrpc2.Request{Method: name, ID: id, Notif: env.id == nil}
		if p := env.params; p != nil {
			if p[0] != '{' && p[0] != '[' && string(p) != "null" {
				return Message{}, bad(`"params" must be an object`)
			}
			raw := json.RawMessage(p)
			req.Params = &raw
		}
		return Message{Req: req, Frame: frame, Size: len(frame)}, nil
	case hasResult || hasError:
		if env.id == nil {
			return Message{}, bad(`a response needs an "id"`)
		}
		resp := &jsonrpc2.Response{ID: id}
		if hasResult {
			raw := json.RawMessage(env.result)
			resp.Result = &raw
		}
		if hasError {
			var e jsonrpc2.Error
			if json.Unmarshal(env.errObj, &e) != nil {
				return Message{}, bad(`"error" must be an error object`)
			}
			resp.Error = &e
		}
		return Message{Resp: resp, Frame: frame, Size: len(frame)}, nil
	}
	return Message{}, bad(`neither a request (no "method") nor a response`)
}

// splitEnvelope cuts a valid JSON object into its JSON-RPC members. Keys
// are compared exactly ("Method" is not "method"); a key with an escape is
// decoded first.
func splitEnvelope(obj []byte) envelope {
	var env envelope
	sc := jsonScanner{b: obj, i: 1}
	for {
		sc.ws()
		if sc.b[sc.i] == '}' {
			return env
		}
		start := sc.i
		sc.skipString()
		key := sc.b[start+1 : sc.i-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			_ = json.Unmarshal(sc.b[start:sc.i], &k) // valid JSON
			key = []byte(k)
		}
		sc.ws()
		sc.i++ // :
		sc.ws()
		vstart := sc.i
		sc.skipValue()
		val := sc.b[vstart:sc.i]
		var slot *[]byte
		switch string(key) {
		case "jsonrpc":
			slot = &env.jsonrpc
		case "id":
			slot = &env.id
		case "method":
			slot = &env.method
		case "params":
			slot = &env.params
		case "result":
			slot = &env.result
		case "error":
			slot = &env.errObj
		}
		if slot != nil {
			if *slot != nil && env.dup == "" {
				env.dup = string(key)
			}
			*slot = val
		}
		sc.ws()
		if sc.b[sc.i] == ',' {
			sc.i++
		}
	}
}

// parseID reads a request id: a string or an integer in 0..2^64-1. An
// absent id (nil) is valid: a notification.
func parseID(raw []byte) (jsonrpc2.ID, bool) {
	if raw == nil {
		return jsonrpc2.ID{}, true
	}
	if raw[0] == '"' {
		s, ok := jsonString(raw)
		return jsonrpc2.ID{Str: s, IsString: ok}, ok
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		return jsonrpc2.ID{}, false
	}
	return jsonrpc2.ID{Num: n}, true
}

// jsonScanner skips over values of JSON already known to be valid.
type jsonScanner struct {
	b []byte
	i int
}

func (sc *jsonScanner) ws() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\r', '\n':
			sc.i++
		default:
			return
		}
	}
}

func (sc *jsonScanner) skipString() {
	sc.i++
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case '\\':
			sc.i += 2
			continue
		case '"':
			sc.i++
			return
		}
		sc.i++
	}
}

// skipValue skips one value: brackets are counted, strings skipped whole.
func (sc *jsonScanner) skipValue() {
	depth := 0
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case '"':
			sc.skipString()
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return // the end of the enclosing object
			}
			depth--
			if depth == 0 {
				sc.i++
				return
			}
		case ',':
			if depth == 0 {
				return
			}
		case ' ', '\t', '\r', '\n':
			if depth == 0 {
				return
			}
		}
		sc.i++
	}
}

// skimMax is how much of a bad or oversized frame is kept to skim an id from.
const skimMax = 64 << 10

// skimAskID finds `"id":"ask-N"` in the first skimMax bytes of a frame the
// reader rejected (truncated, not UTF-8, too large): the editor's answer to
// one of our asks, which must then end as a headless reject (SPEC §3.1).
// It returns "" when no such id can be read.
func skimAskID(b []byte) string {
	b = b[:min(len(b), skimMax)]
	for {
		k := bytes.Index(b, []byte(`"id"`))
		if k < 0 {
			return ""
		}
		b = b[k+4:]
		j := 0
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n') {
			j++
		}
		if j >= len(b) || b[j] != ':' {
			continue
		}
		j++
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n') {
			j++
		}
		rest := b[j:]
		if !bytes.HasPrefix(rest, []byte(`"`+askPrefix)) {
			continue
		}
		e := 1 + len(askPrefix)
		for e < len(rest) && rest[e] >= '0' && rest[e] <= '9' {
			e++
		}
		if e > 1+len(askPrefix) && e < len(rest) && rest[e] == '"' {
			return string(rest[1:e])
		}
	}
}

// jsonString decodes a JSON value that must be a string; one without
// escapes is its own text.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}
