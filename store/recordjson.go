package store

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/perm-peer/perm-peer/protocol"
)

// The record's canonical members written straight from its fields, in key
// order, with encoding/json's omitempty rules: nothing is encoded
// generically and nothing is re-parsed (the profile measured the generic
// path, json.Encoder then canonMembers, at 9.4 µs and 56 allocations a
// record). The bytes are those of the generic path, which stays in the
// tests as the reference: TestDirectRecordMatchesGeneric compares them on
// many random records and FuzzDirectRecord on any field text.
//
// A new field in protocol.AuditRecord (or in a type it holds) must be
// added here too; TestDirectRecordCoversEveryField fails until it is.

// encodeRecord encodes rec's members canonically, but for the four the
// write transaction fills in. It fails for a record that cannot be encoded
// (invalid raw JSON inside), so such a record never joins a batch.
func encodeRecord(rec protocol.AuditRecord) (encodedRecord, error) {
	w := recordWriter{buf: make([]byte, 0, 512+len(rec.ToolCall.RawInput)), members: make([]member, 0, 16), first: make([]bool, 0, 4)}
	w.str("action", rec.Action, true)
	w.str("decidedBy", string(rec.DecidedBy), false)
	w.str("decision", string(rec.Decision), false)
	w.str("grant", rec.Grant, true)
	if j := rec.Judge; j != nil {
		w.member("judge", func() {
			w.open()
			w.str("error", j.Error, true)
			w.int("latencyMs", j.LatencyMs, false)
			w.str("model", j.Model, false)
			w.str("promptPrefixHash", j.PromptPrefixHash, false)
			w.str("reason", j.Reason, true)
			w.str("risk", string(j.Risk), true)
			w.str("verdict", j.Verdict, false)
			w.close()
		})
	}
	w.str("parentSessionId", rec.ParentSessionID, true)
	if len(rec.Reasons) > 0 {
		w.member("reasons", func() { w.reasons(rec.Reasons) })
	}
	start := w.begin("reply")
	w.reply(rec.Reply)
	w.end("reply", start)
	if len(rec.Resources) > 0 {
		w.member("resources", func() {
			w.buf = append(w.buf, '[')
			for i, r := range rec.Resources {
				if i > 0 {
					w.buf = append(w.buf, ',')
				}
				w.buf = appendCanonString(w.buf, r)
			}
			w.buf = append(w.buf, ']')
		})
	}
	w.str("risk", string(rec.Risk), true)
	w.str("sessionId", rec.SessionID, false)
	w.str("source", string(rec.Source), false)
	start = w.begin("toolCall")
	w.toolCall(rec.ToolCall)
	w.end("toolCall", start)
	w.int("turn", int64(rec.Turn), false)
	if w.err != nil {
		return encodedRecord{}, fmt.Errorf("encode: %w", w.err)
	}
	return encodedRecord{members: w.members}, nil
}

// recordWriter appends members to one buffer. Top-level members become
// entries of members (slices of buf); nested objects are written inline,
// each opened by open, its members separated by the writer.
type recordWriter struct {
	buf     []byte
	members []member
	depth   int    // 0 at the top level
	first   []bool // per open nested object: no member written yet
	err     error
}

// begin writes `"key":` of a member (and the comma before it inside a
// nested object); the caller appends the value, then calls end.
func (w *recordWriter) begin(key string) int {
	if w.depth > 0 {
		if !w.first[w.depth-1] {
			w.buf = append(w.buf, ',')
		}
		w.first[w.depth-1] = false
	}
	start := len(w.buf)
	w.buf = append(appendCanonString(w.buf, key), ':')
	return start
}

// end closes a member begun at start: a top-level one becomes an entry of
// members.
func (w *recordWriter) end(key string, start int) {
	if w.depth > 0 {
		return
	}
	w.members = append(w.members, member{key: key, json: w.buf[start:len(w.buf):len(w.buf)]})
	// The next member must not append into this one's capacity.
	w.buf = w.buf[len(w.buf):len(w.buf):cap(w.buf)]
}

// member writes `"key":value` with value written by fn.
func (w *recordWriter) member(key string, fn func()) {
	start := w.begin(key)
	fn()
	w.end(key, start)
}

func (w *recordWriter) open() {
	w.buf = append(w.buf, '{')
	w.depth++
	w.first = append(w.first, true)
}

func (w *recordWriter) close() {
	w.buf = append(w.buf, '}')
	w.depth--
	w.first = w.first[:w.depth]
}

// str writes a string member; omitEmpty as the field's json tag says.
func (w *recordWriter) str(key, v string, omitEmpty bool) {
	if omitEmpty && v == "" {
		return
	}
	start := w.begin(key)
	w.buf = appendCanonString(w.buf, v)
	w.end(key, start)
}

func (w *recordWriter) int(key string, v int64, omitEmpty bool) {
	if omitEmpty && v == 0 {
		return
	}
	start := w.begin(key)
	w.buf = strconv.AppendInt(w.buf, v, 10)
	w.end(key, start)
}

func (w *recordWriter) reasons(rs []protocol.Reason) {
	w.buf = append(w.buf, '[')
	for i, r := range rs {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.open()
		w.str("code", r.Code, false)
		w.str("detail", r.Detail, true)
		w.str("rule", r.Rule, true)
		w.close()
	}
	w.buf = append(w.buf, ']')
}

func (w *recordWriter) reply(r protocol.PermissionReply) {
	w.open()
	if m := r.Meta; m != nil {
		w.member("_meta", func() {
			w.open()
			w.str("auditId", m.AuditID, true)
			w.str("decidedBy", string(m.DecidedBy), true)
			w.str("reason", m.Reason, true)
			w.str("risk", string(m.Risk), true)
			w.str("toolResultNote", m.ToolResultNote, true)
			w.close()
		})
	}
	w.str("feedback", r.Feedback, true)
	w.str("reply", string(r.Reply), false)
	w.close()
}

func (w *recordWriter) toolCall(c protocol.ToolCall) {
	w.open()
	w.str("kind", string(c.Kind), true)
	if len(c.Locations) > 0 {
		w.member("locations", func() {
			w.buf = append(w.buf, '[')
			for i, l := range c.Locations {
				if i > 0 {
					w.buf = append(w.buf, ',')
				}
				w.open()
				w.int("line", int64(l.Line), true)
				w.str("path", l.Path, false)
				w.close()
			}
			w.buf = append(w.buf, ']')
		})
	}
	if len(c.RawInput) > 0 {
		w.member("rawInput", func() {
			raw, err := canonicalJSON(c.RawInput)
			if err != nil && w.err == nil {
				w.err = fmt.Errorf("rawInput: %w", err)
			}
			w.buf = append(w.buf, raw...)
		})
	}
	w.str("title", c.Title, true)
	w.str("tool", c.Tool, true)
	w.str("toolCallId", c.ToolCallID, true)
	w.close()
}

// appendCanonString appends the canonical encoding of s: what encoding/json
// (HTML escaping off) writes for the string a JSON decoder reads back from
// encoding/json's encoding of s. For valid UTF-8 that is encoding/json's
// encoding itself; each byte that is not UTF-8, which encoding/json writes
// as the escape \ufffd, is U+FFFD itself once decoded and encoded again.
func appendCanonString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf
	}
	if plain {
		return append(append(append(b, '"'), s...), '"')
	}
	fixed := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fixed = utf8.AppendRune(fixed, utf8.RuneError)
		} else {
			fixed = append(fixed, s[i:i+n]...)
		}
		i += n
	}
	enc, err := canonicalValue(string(fixed))
	if err != nil { // a valid Go string always encodes
		panic(fmt.Sprintf("encode string: %v", err))
	}
	return append(b, enc...)
}
