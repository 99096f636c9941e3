package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strings"
)

// A matcher is a JSON value compared with what the peer sent:
//
//   - an object matches an object that has every listed key with a matching
//     value (other keys are allowed: results may grow);
//   - an array matches an array of the same length, element by element;
//   - a scalar matches an equal scalar (numbers by value);
//   - an object with a single "$" key is an operator:
//     {"$exact": V}      deep equality, no extra keys anywhere
//     {"$absent": true}  (as an object member) the key must not be there
//     {"$any": true}     present, any value
//     {"$type": T}       string|number|integer|boolean|object|array|null
//     {"$contains": S}   a string containing S
//     {"$includes": M}   an array with at least one element matching M
//     {"$oneOf": [M...]} at least one matcher matches
//     {"$not": M}        M does not match
//     {"$var": NAME}     binds NAME to the value the first time, then
//     requires the same value (ids of peer → editor requests)
type vars map[string]any

// decodeJSON decodes one JSON value with exact numbers.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// operator returns the operator name and argument of a one-key "$" object.
func operator(m any) (string, any, bool) {
	obj, ok := m.(map[string]any)
	if !ok || len(obj) != 1 {
		return "", nil, false
	}
	for k, v := range obj {
		if strings.HasPrefix(k, "$") {
			return k, v, true
		}
	}
	return "", nil, false
}

// match reports "" when actual matches the matcher m, else why not, naming
// the JSON pointer of the first difference.
func (vs vars) match(ptr string, m, actual any) string {
	if op, arg, ok := operator(m); ok {
		return vs.matchOp(ptr, op, arg, actual)
	}
	switch mv := m.(type) {
	case map[string]any:
		obj, ok := actual.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %s", at(ptr), brief(actual))
		}
		for _, k := range sortedKeys(mv) {
			sub := mv[k]
			av, present := obj[k]
			if op, _, ok := operator(sub); ok && op == "$absent" {
				if present {
					return fmt.Sprintf("%s/%s: want no such member, got %s", ptr, k, brief(av))
				}
				continue
			}
			if !present {
				return fmt.Sprintf("%s/%s: missing", ptr, k)
			}
			if why := vs.match(ptr+"/"+k, sub, av); why != "" {
				return why
			}
		}
		return ""
	case []any:
		arr, ok := actual.([]any)
		if !ok {
			return fmt.Sprintf("%s: want an array, got %s", at(ptr), brief(actual))
		}
		if len(arr) != len(mv) {
			return fmt.Sprintf("%s: want %d elements, got %d: %s", at(ptr), len(mv), len(arr), brief(actual))
		}
		for i := range mv {
			if why := vs.match(fmt.Sprintf("%s/%d", ptr, i), mv[i], arr[i]); why != "" {
				return why
			}
		}
		return ""
	}
	if !equalJSON(m, actual) {
		return fmt.Sprintf("%s: want %s, got %s", at(ptr), brief(m), brief(actual))
	}
	return ""
}

func (vs vars) matchOp(ptr, op string, arg, actual any) string {
	switch op {
	case "$exact":
		if !equalJSON(arg, actual) {
			return fmt.Sprintf("%s: want exactly %s, got %s", at(ptr), brief(arg), brief(actual))
		}
	case "$any":
	case "$absent":
		return fmt.Sprintf("%s: $absent is only meaningful as an object member", at(ptr))
	case "$type":
		want, _ := arg.(string)
		if got := jsonType(actual); got != want && !(want == "integer" && isInteger(actual)) {
			return fmt.Sprintf("%s: want a %s, got %s", at(ptr), want, brief(actual))
		}
	case "$contains":
		want, _ := arg.(string)
		s, ok := actual.(string)
		if !ok || !strings.Contains(s, want) {
			return fmt.Sprintf("%s: want a string containing %q, got %s", at(ptr), want, brief(actual))
		}
	case "$includes":
		arr, ok := actual.([]any)
		if !ok {
			return fmt.Sprintf("%s: want an array, got %s", at(ptr), brief(actual))
		}
		for _, el := range arr {
			if vs.tryMatch(ptr, arg, el) {
				return ""
			}
		}
		return fmt.Sprintf("%s: no element matches %s in %s", at(ptr), brief(arg), brief(actual))
	case "$oneOf":
		alts, _ := arg.([]any)
		for _, alt := range alts {
			if vs.tryMatch(ptr, alt, actual) {
				return ""
			}
		}
		return fmt.Sprintf("%s: %s matches none of %s", at(ptr), brief(actual), brief(arg))
	case "$not":
		if vs.tryMatch(ptr, arg, actual) {
			return fmt.Sprintf("%s: %s must not match %s", at(ptr), brief(actual), brief(arg))
		}
	case "$var":
		name, _ := arg.(string)
		if bound, ok := vs[name]; ok {
			if !equalJSON(bound, actual) {
				return fmt.Sprintf("%s: want %s (bound to $%s), got %s", at(ptr), brief(bound), name, brief(actual))
			}
			return ""
		}
		vs[name] = actual
	default:
		return fmt.Sprintf("%s: unknown matcher operator %s", at(ptr), op)
	}
	return ""
}

// tryMatch matches without keeping bindings made by a failed attempt.
func (vs vars) tryMatch(ptr string, m, actual any) bool {
	trial := vars{}
	for k, v := range vs {
		trial[k] = v
	}
	if trial.match(ptr, m, actual) != "" {
		return false
	}
	for k, v := range trial {
		vs[k] = v
	}
	return true
}

// substitute replaces {"$var": NAME} by its bound value and ${name}
// placeholders in strings by env values, for messages the runner sends.
func (vs vars) substitute(v any, env map[string]string) (any, error) {
	if op, arg, ok := operator(v); ok && op == "$var" {
		name, _ := arg.(string)
		bound, ok := vs[name]
		if !ok {
			return nil, fmt.Errorf("$var %q is not bound yet", name)
		}
		return bound, nil
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, sub := range t {
			s, err := vs.substitute(sub, env)
			if err != nil {
				return nil, err
			}
			out[k] = s
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, sub := range t {
			s, err := vs.substitute(sub, env)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	case string:
		return expand(t, env), nil
	}
	return v, nil
}

// expand replaces ${name} by env[name].
func expand(s string, env map[string]string) string {
	for k, v := range env {
		s = strings.ReplaceAll(s, "${"+k+"}", v)
	}
	return s
}

func equalJSON(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		x, ok1 := new(big.Float).SetString(an.String())
		y, ok2 := new(big.Float).SetString(bn.String())
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	if aok != bok {
		return false
	}
	switch at := a.(type) {
	case map[string]any:
		bt, ok := b.(map[string]any)
		if !ok || len(at) != len(bt) {
			return false
		}
		for k, v := range at {
			w, ok := bt[k]
			if !ok || !equalJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		bt, ok := b.([]any)
		if !ok || len(at) != len(bt) {
			return false
		}
		for i := range at {
			if !equalJSON(at[i], bt[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func isInteger(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	f, ok := new(big.Float).SetString(n.String())
	return ok && f.IsInt()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// brief renders a value for a failure message, clipped.
func brief(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

func at(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}
