package redact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/perm-peer/perm-peer/protocol"
)

// Mask replaces every secret. It contains no quote, backslash or secret-like
// text, so redacting twice changes nothing and JSON strings stay valid.
const Mask = "[REDACTED]"

// secretName matches setting names whose value is a secret: password,
// api_key, GITHUB_TOKEN, client-secret, ... It must end the name, so
// "tokenizer" or "max_tokens" are not secret names.
const secretName = `[A-Za-z0-9_.-]*(?i:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key(?:[_-]?id)?|private[_-]?key|credentials?)`

// secretKey matches JSON object keys whose whole value is a secret. Every
// key it matches holds a hint of the last rule, or "authorization",
// "cookie" or "x-api-key" (JSON relies on it; TestSecretKeysHaveHints).
var secretKey = lazy(`^(?:` + secretName + `|(?i:(?:proxy-)?authorization|(?:set-)?cookie|x-api-key))$`)

// rule is one secret shape: re finds it and the text of submatch group (0:
// the whole match) is replaced by Mask.
type rule struct {
	re    func() *regexp.Regexp
	group int
	// hints are lowercase substrings one of which any match contains: a
	// cheap filter that spares the regexp on the common secret-free text.
	hints []string
}

func h(s ...string) []string { return s }

// lazy compiles expr on its first use. Compiling every pattern at package
// init cost ~0.3 ms of each cold start, and most never run: their hints
// spare them on ordinary text.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// value is a setting's value: quoted (also JSON-escaped quotes inside a JSON
// string) or a bare word.
const value = `(\\"(?:[^"\\]|\\[^"])*\\"|"[^"]*"|'[^']*'|[^\s"'\\,;&|)}]+)`

// rules run in order: whole blocks first (private keys), then headers and
// URLs, then well-known token formats, then name=value settings.
var rules = []rule{
	// PEM private key blocks, also a block cut off before its END line.
	{lazy(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`), 0, h("private key")},
	// Authorization / Proxy-Authorization headers with any scheme.
	{lazy(`(?i)\b(?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?\s*(?:(?:bearer|basic|token|digest|negotiate|apikey)\s+)?([^\s"'\\,;]+)`), 1, h("authorization")},
	{lazy(`(?i)\b(?:set-)?cookie\s*:\s*([^\r\n"'\\]+)`), 1, h("cookie")},
	{lazy(`(?i)\bx-api-key\s*:\s*([^\s"'\\,;]+)`), 1, h("x-api-key")},
	// A bare Bearer/Basic credential anywhere else.
	{lazy(`(?i)\b(?:bearer|basic)\s+([A-Za-z0-9._~+/=-]{8,})`), 1, h("bearer", "basic")},
	// Credentials in URLs: scheme://user:password@host.
	{lazy(`[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@"']*:([^/\s@"']+)@`), 1, h("://")},
	// Well-known token formats. Their prefixes are distinctive enough to
	// match inside a longer word, except sk- ("task-...") which needs a
	// word boundary.
	{lazy(`(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,})`), 0, h("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-")},
	{lazy(`\bsk-[A-Za-z0-9_-]{16,}`), 0, h("sk-")},
	{lazy(`\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}`), 0, h("_live_", "_test_")},
	{lazy(`xox[abposr]-[A-Za-z0-9-]{10,}`), 0, h("xox")},
	{lazy(`(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}`), 0, h("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa")},
	{lazy(`AIza[0-9A-Za-z_-]{35}`), 0, h("aiza")},
	{lazy(`npm_[A-Za-z0-9]{36}`), 0, h("npm_")},
	{lazy(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), 0, h("eyj")},
	// --password VALUE, --token=VALUE on command lines.
	{lazy(`--` + secretName + `(?:=|\s+)` + value), 1, h("--")},
	// NAME=VALUE, NAME: VALUE, "NAME": "VALUE" and \"NAME\": \"VALUE\".
	{lazy(`\b` + secretName + `(?:\\?["'])?\s*[:=]\s*` + value), 1, h("pass", "secret", "token", "key", "credential")},
}

// mask keeps a value's quotes so JSON text inside a command
// (curl -d '{"password":"x"}') stays well formed.
func mask(v string) string {
	switch {
	case len(v) >= 4 && strings.HasPrefix(v, `\"`) && strings.HasSuffix(v, `\"`):
		return `\"` + Mask + `\"`
	case len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0]:
		return v[:1] + Mask + v[:1]
	}
	return Mask
}

// String returns s with secrets replaced by Mask: Authorization and Bearer
// credentials, URL passwords, well-known token formats (GitHub, OpenAI,
// Stripe, Slack, AWS, Google, npm, JWT), private key blocks and the values
// of secret-named settings (password=, api_key:, GITHUB_TOKEN=, --token).
// It is idempotent.
func String(s string) string {
	// Masking one secret can expose the start of another (a word boundary
	// appears), so run the rules to a fixed point; two passes settle all
	// the shapes above, the bound is a guard.
	for range 4 {
		next := pass(s)
		if next == s {
			break
		}
		s = next
	}
	return s
}

func pass(s string) string {
	lower := strings.ToLower(s)
	for _, r := range rules {
		if !slices.ContainsFunc(r.hints, func(h string) bool { return strings.Contains(lower, h) }) {
			continue
		}
		idx := r.re().FindAllStringSubmatchIndex(s, -1)
		if idx == nil {
			continue
		}
		var b strings.Builder
		last := 0
		for _, m := range idx {
			lo, hi := m[2*r.group], m[2*r.group+1]
			if lo < 0 {
				continue
			}
			b.WriteString(s[last:lo])
			b.WriteString(mask(s[lo:hi]))
			last = hi
		}
		b.WriteString(s[last:])
		s = b.String()
		lower = strings.ToLower(s)
	}
	return s
}

// Bounds of what ToolCall keeps: the audit stores every call, and an agent
// may send inputs of many MiB.
const (
	MaxInput = 128 << 10 // a larger raw input is kept as a summary (Summary)
	maxHead  = 64 << 10  // the text a summary keeps
	maxTitle = 4 << 10
)

// ToolCall returns a copy of call with secrets in its title and raw input
// redacted, for the audit. A JSON raw input is redacted value by value (and
// a value under a secret-named key is masked whole) so it stays valid JSON
// with its key order; when nothing is secret its bytes are unchanged. Input
// that is not JSON is redacted as text. A redacted input over MaxInput
// bytes is replaced by its Summary, a title over 4 KiB is cut.
func ToolCall(call protocol.ToolCall) protocol.ToolCall {
	out := call
	out.Title = String(cut(call.Title, maxTitle))
	if call.Locations != nil {
		out.Locations = append([]protocol.Location(nil), call.Locations...)
	}
	if call.RawInput != nil {
		out.RawInput = JSON(call.RawInput)
		if len(out.RawInput) > MaxInput {
			out.RawInput = summary(out.RawInput)
		}
	}
	return out
}

// Summary is what the audit keeps of a redacted raw input over MaxInput
// bytes: its size, its SHA-256 and its first 64 KiB as text.
type Summary struct {
	Truncated struct {
		Bytes  int    `json:"bytes"`
		SHA256 string `json:"sha256"`
		Head   string `json:"head"`
	} `json:"_permPeerTruncated"`
}

func summary(raw json.RawMessage) json.RawMessage {
	var s Summary
	sum := sha256.Sum256(raw)
	s.Truncated.Bytes, s.Truncated.SHA256 = len(raw), hex.EncodeToString(sum[:])
	s.Truncated.Head = cut(string(raw), maxHead)
	b, _ := json.Marshal(s) // cannot fail: strings and an int
	return b
}

// cut returns s cut to at most max bytes of valid UTF-8.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "")
}

// JSON returns a redacted copy of raw (see ToolCall).
func JSON(raw json.RawMessage) json.RawMessage {
	// Most inputs hold no secret and no escape: every rule and secretKey
	// needs one of the hints in the lowercased text it reads, and without
	// a backslash each key and string reads as written in raw, so a raw
	// input without any hint comes back unchanged from the walk below.
	if bytes.IndexByte(raw, '\\') < 0 && !hasHint(raw) {
		return append(json.RawMessage(nil), raw...)
	}
	return walkJSON(raw)
}

// hasHint reports whether the lowercased b holds a hint of any rule.
func hasHint(b []byte) bool {
	lower := bytes.ToLower(b)
	for _, r := range rules {
		for _, h := range r.hints {
			if bytes.Contains(lower, []byte(h)) {
				return true
			}
		}
	}
	return false
}

// walkJSON redacts raw value by value.
func walkJSON(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	changed := false
	err := walk(dec, &buf, false, &changed)
	if err == nil {
		if _, tail := dec.Token(); tail != io.EOF {
			err = errTrailing
		}
	}
	if err != nil {
		// Not one JSON value: fall back to text so nothing slips through.
		return json.RawMessage(String(string(raw)))
	}
	if !changed {
		return append(json.RawMessage(nil), raw...)
	}
	return json.RawMessage(buf.Bytes())
}

type jsonError string

func (e jsonError) Error() string { return string(e) }

const errTrailing = jsonError("trailing data after JSON value")

// walk re-encodes one JSON value from dec into buf, redacting strings.
func walk(dec *json.Decoder, buf *bytes.Buffer, secret bool, changed *bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			buf.WriteByte('{')
			for i := 0; dec.More(); i++ {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, ok := k.(string)
				if !ok {
					return jsonError("object key is not a string")
				}
				if i > 0 {
					buf.WriteByte(',')
				}
				writeString(buf, key)
				buf.WriteByte(':')
				if err := walk(dec, buf, secret || secretKey().MatchString(key), changed); err != nil {
					return err
				}
			}
			buf.WriteByte('}')
		case '[':
			buf.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					buf.WriteByte(',')
				}
				if err := walk(dec, buf, secret, changed); err != nil {
					return err
				}
			}
			buf.WriteByte(']')
		default:
			return jsonError("unexpected delimiter")
		}
		// Consume the closing delimiter.
		if _, err := dec.Token(); err != nil {
			return err
		}
	case string:
		v := String(t)
		if secret && t != "" && t != Mask {
			v = Mask
		}
		if v != t {
			*changed = true
		}
		writeString(buf, v)
	case json.Number:
		if secret {
			// A numeric PIN or key under a secret name goes too.
			*changed = true
			writeString(buf, Mask)
			break
		}
		buf.WriteString(t.String())
	case bool:
		if t {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case nil:
		buf.WriteString("null")
	}
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	buf.Truncate(buf.Len() - 1)
}
