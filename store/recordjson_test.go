package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
)

// encodeRecordGeneric is the generic encoding encodeRecord replaced, kept
// as its reference: encoding/json, then the members canonicalized and the
// four the transaction fills in dropped.
func encodeRecordGeneric(rec protocol.AuditRecord) (encodedRecord, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return encodedRecord{}, fmt.Errorf("encode: %w", err)
	}
	ms, err := canonMembers(buf.Bytes())
	if err != nil {
		return encodedRecord{}, fmt.Errorf("encode: %w", err)
	}
	e := encodedRecord{members: ms[:0]}
	for _, m := range ms {
		switch m.key {
		case memberID, memberTS, memberPrev, memberHash:
			continue
		}
		e.members = append(e.members, m)
	}
	return e, nil
}

// canonMembers returns the canonical members of the JSON object data,
// sorted by key.
func canonMembers(data []byte) ([]member, error) {
	c := canonicalizer{data: data}
	c.space()
	if c.pos >= len(c.data) || c.data[c.pos] != '{' {
		return nil, errCanonSyntax
	}
	ms, err := c.members()
	if err != nil {
		return nil, err
	}
	c.space()
	if c.pos != len(c.data) {
		return nil, errCanonSyntax
	}
	// One buffer holds every member's `"key":value`.
	n := 0
	for _, m := range ms {
		n += len(m.keyJSON) + 1 + m.end - m.start
	}
	buf := make([]byte, 0, n)
	out := make([]member, len(ms))
	for i, m := range ms {
		start := len(buf)
		buf = append(append(append(buf, m.keyJSON...), ':'), c.out[m.start:m.end]...)
		out[i] = member{key: string(m.key), json: buf[start:len(buf):len(buf)]}
	}
	return out, nil
}

// sameEncoding fails unless the direct and the generic encodings of rec
// are byte-identical, members and spliced record alike.
func sameEncoding(t testing.TB, rec protocol.AuditRecord) {
	t.Helper()
	got, gerr := encodeRecord(rec)
	want, werr := encodeRecordGeneric(rec)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("direct error %v, generic error %v for %+v", gerr, werr, rec)
	}
	if gerr != nil {
		return
	}
	a, err := got.bytes("12", "2026-12-01T00:00:00.5Z", "p\u00e9", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := want.bytes("12", "2026-12-01T00:00:00.5Z", "p\u00e9", "")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("direct encoding differs from the generic one:\n got %q\nwant %q", a, b)
	}
	if len(got.members) != len(want.members) {
		t.Fatalf("%d members, generic %d", len(got.members), len(want.members))
	}
	for i := range got.members {
		if got.members[i].key != want.members[i].key || !bytes.Equal(got.members[i].json, want.members[i].json) {
			t.Fatalf("member %d: %q, generic %q", i, got.members[i].json, want.members[i].json)
		}
	}
}

// texts are the strings random records are made of: the empty string,
// ASCII, HTML, escapes, control characters, U+2028, invalid UTF-8, a
// literal U+FFFD, long runs.
var texts = []string{
	"", "ls", "go test ./...", "echo <a> & \"b\" 'c'", "back\\slash", "tab\there\nnew\rline",
	"\x00\x01\x1f\x7f", "héllo 日本 🙂", "\u2028\u2029", "\xff\xfe", "caf\xe9", "\xed\xa0\x80",
	"\uFFFD", "a\xc3", strings.Repeat("x", 300), "/", "~/.ssh/id_rsa", "\u0041",
}

var rawInputs = []string{
	"", `{"command":"ls"}`, `{"z": 1.50, "a": {"y": [1e3, -0, 12345678901234567890], "b": "\u0041<"}, "m": null}`,
	`"just a string"`, `[{"b":1,"a":2},null,true]`, `{"a":1,"a":2}`, `{"k":"\u2028 <>&"}`, `null`, `{}`, `{"x":"\ud800"}`,
	`{"not json"`, "{\"c\":\"caf\xe9\"}",
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// randomRecord fills every field, each one empty with some probability.
func randomRecord(r *rand.Rand) protocol.AuditRecord {
	s := func() string { return pick(r, texts) }
	rec := protocol.AuditRecord{
		ID: s(), TS: s(), SessionID: s(), ParentSessionID: s(), Turn: r.IntN(5) - 1,
		ToolCall: protocol.ToolCall{ToolCallID: s(), Tool: s(), Kind: protocol.ToolKind(s()), Title: s()},
		Action:   s(), Decision: protocol.ReplyKind(s()), DecidedBy: protocol.DecidedBy(s()), Source: protocol.Source(s()),
		Reply: protocol.PermissionReply{Reply: protocol.ReplyKind(s()), Feedback: s()},
		Risk:  protocol.Risk(s()), Grant: s(), Prev: s(), Hash: s(),
	}
	if raw := pick(r, rawInputs); raw != "" {
		rec.ToolCall.RawInput = json.RawMessage(raw)
	}
	for range r.IntN(3) {
		rec.ToolCall.Locations = append(rec.ToolCall.Locations, protocol.Location{Path: s(), Line: r.IntN(3)})
	}
	for range r.IntN(3) {
		rec.Resources = append(rec.Resources, s())
	}
	if r.IntN(4) == 0 {
		rec.Resources = []string{} // empty, not nil: omitted all the same
	}
	for range r.IntN(3) {
		rec.Reasons = append(rec.Reasons, protocol.Reason{Code: s(), Detail: s(), Rule: s()})
	}
	if r.IntN(2) == 0 {
		rec.Judge = &protocol.JudgeDetails{Model: s(), Verdict: s(), Risk: protocol.Risk(s()), Reason: s(),
			LatencyMs: int64(r.IntN(3)) - 1, PromptPrefixHash: s(), Error: s()}
	}
	if r.IntN(2) == 0 {
		rec.Reply.Meta = &protocol.ReplyMeta{DecidedBy: protocol.DecidedBy(s()), Risk: protocol.Risk(s()), Reason: s(),
			AuditID: s(), ToolResultNote: s()}
	}
	return rec
}

// TestDirectRecordMatchesGeneric: on 20 000 random records the direct
// encoding is byte-identical to the generic one (and fails where it fails:
// raw input that is not JSON).
func TestDirectRecordMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 14))
	for range 20000 {
		sameEncoding(t, randomRecord(r))
	}
	sameEncoding(t, protocol.AuditRecord{})
}

// fill sets every field of v, recursively, to a non-zero value.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Ptr:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`{"a":1}`))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	default:
		panic("fill: add a case for " + v.Kind().String())
	}
}

// TestDirectRecordCoversEveryField: a record with every field (at every
// depth) set encodes as the generic path does, so a field added to
// protocol.AuditRecord or a type in it and not to encodeRecord fails here.
func TestDirectRecordCoversEveryField(t *testing.T) {
	var rec protocol.AuditRecord
	fill(reflect.ValueOf(&rec).Elem())
	sameEncoding(t, rec)
}

// FuzzDirectRecord: whatever text the fields carry, the direct encoding is
// the generic one.
func FuzzDirectRecord(f *testing.F) {
	f.Add("go test ./...", `{"command":"go test ./..."}`, "fine", "s1", 3)
	f.Add("echo <a> & \"b\"", `{"z":1.50,"a":{"y":[1e3,-0],"b":"\u0041<"}}`, "\u2028\x00\x1f", "", -1)
	f.Add("printf '\xff\xfe'", `"just a string"`, "\xed\xa0\x80", "s\xff", 0)
	f.Fuzz(func(t *testing.T, text, rawInput, detail, session string, n int) {
		r := rand.New(rand.NewPCG(uint64(n), uint64(len(text))))
		rec := randomRecord(r)
		rec.Action, rec.SessionID, rec.Reply.Feedback = text, session, detail
		rec.Reasons = append(rec.Reasons, protocol.Reason{Code: detail, Detail: text})
		rec.ToolCall.RawInput = nil
		if rawInput != "" {
			rec.ToolCall.RawInput = json.RawMessage(rawInput)
		}
		rec.Turn = n
		sameEncoding(t, rec)
	})
}

// BenchmarkEncodeRecordGeneric is BenchmarkEncodeRecord on the generic
// encoding it replaced, for the comparison.
func BenchmarkEncodeRecordGeneric(b *testing.B) {
	rec := record("bench", protocol.SourceAuto, "git status")
	rec.Reasons = []protocol.Reason{{Code: "gate.safe", Detail: "git status only reads"}}
	rec.Resources = []string{"/work/app"}
	b.ReportAllocs()
	for b.Loop() {
		enc, err := encodeRecordGeneric(rec)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := enc.bytes("42", "2026-11-30T00:00:00.000000001Z", "ab12", "cd34"); err != nil {
			b.Fatal(err)
		}
	}
}
