package jsonedit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, text string, comments bool) *Doc {
	t.Helper()
	d, err := Parse([]byte(text), comments)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return d
}

func apply(t *testing.T, d *Doc) string {
	t.Helper()
	b, err := d.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAppendFollowsStyle: an appended member takes the file's indent
// (tabs, four spaces, one line) and key-colon spacing, and a string is
// written without HTML escapes.
func TestAppendFollowsStyle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\n\t\"a\": 1\n}\n", "{\n\t\"a\": 1,\n\t\"k\": {\n\t\t\"c\": \"x && y > z\"\n\t}\n}\n"},
		{"{\n    \"a\" : 1\n}", "{\n    \"a\" : 1,\n    \"k\" : {\n        \"c\" : \"x && y > z\"\n    }\n}"},
		{`{"a":1}`, `{"a":1, "k":{"c":"x && y > z"}}`},
		{"{}\n", "{\n  \"k\": {\n    \"c\": \"x && y > z\"\n  }\n}\n"},
		{"", "{\n  \"k\": {\n    \"c\": \"x && y > z\"\n  }\n}\n"},
	} {
		d := mustParse(t, c.in, false)
		d.Append(d.Root(), "k", Fields{{"c", "x && y > z"}})
		if got := apply(t, d); got != c.want {
			t.Errorf("%q:\ngot  %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestEditsKeepTheRest: replacing one value and removing a member leave
// every other byte, comments included.
func TestEditsKeepTheRest(t *testing.T) {
	in := "{\n  // theme\n  \"a\": \"\\u0026\", /* b */ \"b\": [1, 2, 3],\n  \"c\": {\"d\": true}\n}\n"
	d := mustParse(t, in, true)
	b := d.Root().Get("b")
	d.Remove(b, []int{0, 2})
	d.Replace(d.Root().Get("c").Get("d"), false)
	want := "{\n  // theme\n  \"a\": \"\\u0026\", /* b */ \"b\": [2],\n  \"c\": {\"d\": false}\n}\n"
	if got := apply(t, d); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	d = mustParse(t, in, true)
	d.Remove(d.Root(), []int{0, 1, 2})
	if got := apply(t, d); got != "{}\n" {
		t.Fatalf("all removed: %q", got)
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct {
		in       string
		comments bool
		want     string
	}{
		{`{"a":1,"a":2}`, false, `the key "a" appears twice`},
		{"{\n// c\n}", false, "JSON allows no comments here"},
		{"{/* open", true, "is not closed"},
		{`[1]`, false, "not a JSON object"},
		{`{"a":1,}`, true, "invalid character"},
		{"\xef\xbb\xbf{}", false, "invalid character"},
	} {
		if _, err := Parse([]byte(c.in), c.comments); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzEdit: for any object text Parse accepts, no edit changes nothing;
// an appended member decodes as the old object plus the member, and
// removing it again gives back the text byte for byte when the object
// had members.
func FuzzEdit(f *testing.F) {
	for _, s := range []string{"{}", `{"a":1}`, "{\n  \"a\": [1, {\"b\": null}]\n}\n", "{\n\t// c\n\t\"x\": \"y\" /* z */\n}", `{ "k" : "\u00e9\"" }`} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, text []byte, comments bool) {
		d, err := Parse(text, comments)
		if err != nil || d.Root().Get("perm-peer-key") != nil {
			return
		}
		if got, _ := d.Bytes(); len(bytes.TrimSpace(text)) > 0 && !bytes.Equal(got, text) {
			t.Fatalf("no edit changed %q to %q", text, got)
		}
		before := decode(t, d.plain)
		d.Append(d.Root(), "perm-peer-key", Fields{{"c", []any{"a <b> & c", 1}}})
		out, err := d.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		d2, err := Parse(out, comments)
		if err != nil {
			t.Fatalf("the appended text does not parse: %v\n%q", err, out)
		}
		after := decode(t, d2.plain)
		before["perm-peer-key"] = map[string]any{"c": []any{"a <b> & c", float64(1)}}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("append: %v, want %v\n%q", after, before, out)
		}
		d2.Remove(d2.Root(), []int{d2.Root().Len() - 1})
		back, err := d2.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Root().Members) > 0 && !bytes.Equal(back, text) {
			t.Fatalf("append then remove: %q, want %q", back, text)
		}
	})
}

func decode(t *testing.T, plain []byte) map[string]any {
	var v map[string]any
	if err := json.Unmarshal(plain, &v); err != nil {
		t.Fatalf("%v: %q", err, plain)
	}
	return v
}
