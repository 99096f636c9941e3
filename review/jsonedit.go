package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// appendRule returns a policy file's text with value appended to the array
// under the top-level key, the key added when absent. Every other byte is
// kept: the user's order, spacing, indentation and other keys stay as they
// wrote them; the new element copies the spacing its neighbours use.
func appendRule(data []byte, key, value string) ([]byte, error) {
	quoted, err := marshalString(value)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte(fmt.Sprintf("{\n  %s: [\n    %s\n  ]\n}\n", mustString(key), quoted)), nil
	}
	members, open, err := topMembers(data)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		if m.key != key {
			continue
		}
		return appendElement(data, m, quoted)
	}
	member := mustString(key) + ": [" + quoted + "]"
	if len(members) == 0 {
		return splice(data, open+1, "\n  "+member+"\n"), nil
	}
	last := members[len(members)-1]
	ws := leadingSpace(data, last.keyStart)
	if ws == "" {
		ws = " "
	}
	return splice(data, last.valueEnd, ","+ws+member), nil
}

// member is one top-level member: byte offsets of its key and value.
type member struct {
	key                  string
	keyStart             int
	valueStart, valueEnd int
}

// topMembers scans the top-level object: its members, and the offset of
// its opening brace.
func topMembers(data []byte) (members []member, open int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	open = skipWS(data, 0)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, 0, errors.New("the policy file is not a JSON object")
	}
	for dec.More() {
		ks := skipWS(data, int(dec.InputOffset()))
		kt, err := dec.Token()
		if err != nil {
			return nil, 0, err
		}
		key, _ := kt.(string)
		vs := skipWS(data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, err
		}
		members = append(members, member{key: key, keyStart: ks, valueStart: vs, valueEnd: int(dec.InputOffset())})
	}
	if _, err := dec.Token(); err != nil {
		return nil, 0, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, 0, errors.New("the policy file holds more than one JSON value")
	}
	return members, open, nil
}

// appendElement appends quoted to the array that is m's value.
func appendElement(data []byte, m member, quoted string) ([]byte, error) {
	arr := data[m.valueStart:m.valueEnd]
	starts, ends, err := listElements(arr)
	if errors.Is(err, errNotList) {
		return nil, fmt.Errorf("%q is not a list in the policy file", m.key)
	} else if err != nil {
		return nil, err
	}
	if len(starts) == 0 {
		// [] or [ ]: the one element goes inside
		return splice(data, m.valueStart+1, quoted), nil
	}
	ws := leadingSpace(arr, starts[len(starts)-1])
	if len(starts) == 1 && !strings.Contains(ws, "\n") {
		ws = " " // ["A"] → ["A", "B"]: no separator to copy yet
	}
	return splice(data, m.valueStart+ends[len(ends)-1], ","+ws+quoted), nil
}

// leadingSpace is the whitespace just before offset i (after the comma or
// bracket that precedes it).
var errNotList = errors.New("not a JSON array")

// listElements is where each element of JSON array arr starts (after its
// leading space) and ends.
func listElements(arr []byte) (starts, ends []int, err error) {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, nil, errNotList
	}
	for dec.More() {
		starts = append(starts, skipWS(arr, int(dec.InputOffset())))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		ends = append(ends, int(dec.InputOffset()))
	}
	return starts, ends, nil
}

func leadingSpace(data []byte, i int) string {
	j := i
	for j > 0 && strings.IndexByte(" \t\r\n", data[j-1]) >= 0 {
		j--
	}
	return string(data[j:i])
}

func skipWS(data []byte, i int) int {
	for i < len(data) && strings.IndexByte(" \t\r\n,:", data[i]) >= 0 {
		i++
	}
	return i
}

func splice(data []byte, at int, text string) []byte {
	out := make([]byte, 0, len(data)+len(text))
	out = append(out, data[:at]...)
	out = append(out, text...)
	return append(out, data[at:]...)
}

func marshalString(s string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func mustString(s string) string {
	q, _ := marshalString(s)
	return q
}

// lineDiff shows what changed between two texts: the lines around the
// change, "-" for removed, "+" for added.
func lineDiff(before, after []byte) string {
	a := strings.Split(string(before), "\n")
	b := strings.Split(string(after), "\n")
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var out strings.Builder
	from := max(0, p-2)
	for i := from; i < p; i++ {
		fmt.Fprintf(&out, "  %4d    %s\n", i+1, a[i])
	}
	for i := p; i < len(a)-s; i++ {
		fmt.Fprintf(&out, "  %4d  - %s\n", i+1, a[i])
	}
	for i := p; i < len(b)-s; i++ {
		fmt.Fprintf(&out, "  %4d  + %s\n", i+1, b[i])
	}
	for i := len(b) - s; i < min(len(b), len(b)-s+2); i++ {
		if b[i] != "" || i < len(b)-1 {
			fmt.Fprintf(&out, "  %4d    %s\n", i+1, b[i])
		}
	}
	return out.String()
}

// removeElement returns data without element idx of the array at the
// member path (each an object key), keeping every other byte.
func removeElement(data []byte, path []string, idx int) ([]byte, error) {
	start, end := 0, len(data)
	for _, key := range path {
		members, _, err := topMembers(data[start:end])
		if err != nil {
			return nil, err
		}
		found := false
		for _, m := range members {
			if m.key == key {
				start, end = start+m.valueStart, start+m.valueEnd
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("no %q in the file", strings.Join(path, "."))
		}
	}
	arr := data[start:end]
	starts, ends, err := listElements(arr)
	if errors.Is(err, errNotList) {
		return nil, fmt.Errorf("%q is not a list", strings.Join(path, "."))
	} else if err != nil {
		return nil, err
	}
	if idx < 0 || idx >= len(starts) {
		return nil, fmt.Errorf("%s has no element %d", strings.Join(path, "."), idx)
	}
	from, to := starts[idx], ends[idx]
	switch {
	case idx > 0:
		from = ends[idx-1] // ", elem" goes, with the space before it
	case len(starts) > 1:
		to = starts[1] // "elem, " goes
	}
	out := append([]byte{}, data[:start+from]...)
	return append(out, data[start+to:]...), nil
}
