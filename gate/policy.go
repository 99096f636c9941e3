package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/schemas"
)

// Policy is the compiled user + project policy. Rules are parsed once, when
// the policy is loaded, so Analyze never parses a rule.
type Policy struct {
	User    protocol.Policy
	Project protocol.Policy

	userFile, projectFile string
	root                  string
	trusted               bool
	allow, ask, deny      []*rule
	// hostAllow are the allow rules the user keeps in the host's own
	// settings (Claude Code's permissions.allow): the host applies them
	// itself, so in perm-peer they only clear a human-only call a policy
	// allow rule naming it would clear (SPEC §10.2: never more prompts
	// than the host alone), and do nothing else.
	hostAllow []*rule
	hostLater []*hostAllowSource // read on first use (AddHostAllowFunc)
	sensitive []string           // lower-case globs, as written
	// IgnoredProject lists project-policy entries dropped because the project
	// is not trusted (allow rules, judge settings).
	IgnoredProject []string
}

// LoadPolicy reads the user policy file and the project policy file (either
// may be "" or missing) and compiles them for projectRoot. A malformed file is
// an error naming the file, line:col and JSON pointer.
func LoadPolicy(userFile, projectFile, projectRoot string) (*Policy, error) {
	p, err := LoadPolicyUnchecked(userFile, projectFile, projectRoot)
	if err != nil {
		return nil, err
	}
	if err := p.checkExamplesAtLoad(); err != nil {
		return nil, err
	}
	return p, nil
}

// LoadPolicyUnchecked is LoadPolicy without checking the files' examples:
// for tools that report every failing example (perm-peer policy test,
// lint) rather than stop at the first.
func LoadPolicyUnchecked(userFile, projectFile, projectRoot string) (*Policy, error) {
	user, err := readPolicy(userFile)
	if err != nil {
		return nil, err
	}
	project, err := readPolicy(projectFile)
	if err != nil {
		return nil, err
	}
	p, err := compile(user, project, projectRoot)
	if err != nil {
		return nil, err
	}
	p.userFile, p.projectFile = absOrEmpty(userFile), absOrEmpty(projectFile)
	return p, nil
}

// PolicyFrom compiles policies already decoded (a corpus row's inline policy
// is the user policy). Bad rule syntax is an error naming the JSON pointer.
func PolicyFrom(user, project protocol.Policy, projectRoot string) (*Policy, error) {
	for _, pol := range []protocol.Policy{user, project} {
		if err := checkEnums(pol); err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
	}
	return compile(user, project, projectRoot)
}

func absOrEmpty(f string) string {
	if f == "" {
		return ""
	}
	if a, err := filepath.Abs(f); err == nil {
		return a
	}
	return f
}

// readPolicy reads and validates one policy file; missing is empty.
func readPolicy(file string) (protocol.Policy, error) {
	var pol protocol.Policy
	if file == "" {
		return pol, nil
	}
	data, err := readPolicyFile(file)
	if err != nil || data == nil {
		return pol, err
	}
	if bad := invalidUTF8(data); bad >= 0 {
		return pol, checkPolicyText(file, data)
	}
	var anyDoc any
	if err := json.Unmarshal(data, &anyDoc); err != nil {
		off := 0
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = int(se.Offset)
		}
		line, col := lineCol(data, off)
		return pol, fmt.Errorf("policy %s:%d:%d: not valid JSON: %w", file, line, col, err)
	}
	if err := checkPolicyText(file, data); err != nil {
		return pol, err
	}
	// rule syntax first: its message is more precise than the schema's pattern
	var lenient protocol.Policy
	if json.Unmarshal(data, &lenient) == nil {
		for _, list := range []struct {
			name  string
			rules []string
		}{{"allow", lenient.Allow}, {"ask", lenient.Ask}, {"deny", lenient.Deny}} {
			for i, s := range list.rules {
				if _, err := parseRule(s); err != nil {
					ptr := fmt.Sprintf("/%s/%d", list.name, i)
					line, col := lineCol(data, pointerOffset(data, ptr))
					return pol, fmt.Errorf("policy %s:%d:%d: %s: %w", file, line, col, ptr, err)
				}
			}
		}
	}
	if err := schemas.ValidatePolicy(data); err != nil {
		var se *schemas.Error
		if errors.As(err, &se) && len(se.Causes) > 0 {
			c := se.Causes[0]
			line, col := lineCol(data, pointerOffset(data, c.Pointer))
			ptr := c.Pointer
			if ptr == "" {
				ptr = "/"
			}
			return pol, fmt.Errorf("policy %s:%d:%d: %s: %s", file, line, col, ptr, c.Message)
		}
		return pol, fmt.Errorf("policy %s: %w", file, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pol); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			ptr := "/" + strings.ReplaceAll(te.Field, ".", "/")
			line, col := lineCol(data, pointerOffset(data, ptr))
			return pol, fmt.Errorf("policy %s:%d:%d: %s: %s", file, line, col, ptr, typeProblem(te))
		}
		off := int(dec.InputOffset())
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = int(se.Offset)
		}
		line, col := lineCol(data, off)
		return pol, fmt.Errorf("policy %s:%d:%d: %w", file, line, col, err)
	}
	if err := checkEnums(pol); err != nil {
		ptr := strings.SplitN(err.Error(), ":", 2)[0]
		line, col := lineCol(data, pointerOffset(data, ptr))
		return pol, fmt.Errorf("policy %s:%d:%d: %w", file, line, col, err)
	}
	return pol, nil
}

// typeProblem says in the peer's words why a value the schema accepted does
// not fit its field (in practice: an integer out of range, 1e30).
func typeProblem(te *json.UnmarshalTypeError) string {
	value := strings.TrimPrefix(te.Value, "number ")
	switch te.Type.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("%s is not an integer from %d to %d", value, math.MinInt64, math.MaxInt64)
	}
	return fmt.Sprintf("%s does not fit here (want %s)", te.Value, te.Type.Kind())
}

// checkEnums rejects mode and tier values outside their closed sets (the
// error starts with the JSON pointer).
func checkEnums(pol protocol.Policy) error {
	switch pol.Mode {
	case "", protocol.ModeAsk, protocol.ModeAuto, protocol.ModeFull, protocol.ModeAI:
	default:
		return fmt.Errorf("/mode: unknown mode %q (want ask, auto, full or ai)", pol.Mode)
	}
	switch pol.Tier {
	case "", protocol.TierStandard, protocol.TierAggressive, protocol.TierPassive:
	default:
		return fmt.Errorf("/tier: unknown tier %q (want standard, aggressive or passive)", pol.Tier)
	}
	switch pol.HookAsks {
	case "", protocol.HookAsksHost, protocol.HookAsksPeer:
	default:
		return fmt.Errorf("/hookAsks: unknown value %q (want host or perm-peer)", pol.HookAsks)
	}
	return nil
}

// compile parses every rule and applies the trust boundary: an untrusted
// project may add deny and ask rules and sensitive globs, nothing that
// loosens.
func compile(user, project protocol.Policy, root string) (*Policy, error) {
	if root != "" {
		root = filepath.Clean(root)
	}
	p := &Policy{User: user, Project: project, root: root}
	for _, t := range user.TrustedProjects {
		if root != "" && filepath.Clean(t) == root {
			p.trusted = true
		}
	}
	add := func(dst *[]*rule, list []string, where, name string) error {
		for i, s := range list {
			r, err := parseRule(s)
			if err != nil {
				return fmt.Errorf("%s policy /%s/%d: %w", where, name, i, err)
			}
			*dst = append(*dst, r)
		}
		return nil
	}
	for _, step := range []error{
		add(&p.allow, user.Allow, "user", "allow"),
		add(&p.ask, user.Ask, "user", "ask"),
		add(&p.deny, user.Deny, "user", "deny"),
		add(&p.ask, project.Ask, "project", "ask"),
		add(&p.deny, project.Deny, "project", "deny"),
	} {
		if step != nil {
			return nil, step
		}
	}
	if p.trusted {
		if err := add(&p.allow, project.Allow, "project", "allow"); err != nil {
			return nil, err
		}
	} else {
		for _, s := range project.Allow {
			p.IgnoredProject = append(p.IgnoredProject, "allow "+s)
		}
		if project.Judge != nil {
			p.IgnoredProject = append(p.IgnoredProject, "judge")
		}
		if len(p.IgnoredProject) > 0 {
			slog.Warn("project policy may not loosen the user's policy; entries ignored (add the project to trustedProjects to allow them)",
				"project", root, "ignored", p.IgnoredProject)
		}
	}
	for _, g := range append(append([]string{}, user.Sensitive...), project.Sensitive...) {
		if g = strings.TrimSpace(g); g != "" {
			p.sensitive = append(p.sensitive, g)
		}
	}
	return p, nil
}

// sensitiveGlobs returns the policy's sensitive globs as absolute lower-case
// patterns for this environment.
func (p *Policy) sensitiveGlobs(env *Env) []string {
	if p == nil || len(p.sensitive) == 0 {
		return nil
	}
	out := make([]string, 0, len(p.sensitive))
	for _, g := range p.sensitive {
		r := rule{glob: g}
		if a := r.absGlob(env.Project, env.Home); a != "" {
			out = append(out, strings.ToLower(a))
		}
	}
	return out
}

// Mode is the policy's default mode (ask when unset).
func (p *Policy) Mode() protocol.Mode {
	if p == nil || p.User.Mode == "" {
		return protocol.ModeAsk
	}
	return p.User.Mode
}

// Tier is the policy's default tier (standard when unset).
func (p *Policy) Tier() protocol.Tier {
	if p == nil || p.User.Tier == "" {
		return protocol.TierStandard
	}
	return p.User.Tier
}

// Judge is the judge configuration (user policy only), nil when none.
func (p *Policy) Judge() *protocol.JudgeConfig {
	if p == nil {
		return nil
	}
	return p.User.Judge
}

// AskTimeout bounds permission/ask; 0 means no bound.
// OwnsHookAsks reports whether either policy says "hookAsks":
// "perm-peer" (the stricter choice wins, so a project may make it so).
func (p *Policy) OwnsHookAsks() bool {
	return p != nil && (p.User.HookAsks == protocol.HookAsksPeer || p.Project.HookAsks == protocol.HookAsksPeer)
}

func (p *Policy) AskTimeout() time.Duration {
	if p == nil {
		return 0
	}
	return time.Duration(p.User.AskTimeoutMs) * time.Millisecond
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int) (int, int) {
	off = max(0, min(off, len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// pointerOffset finds the byte offset of the value at a JSON pointer, or of
// its nearest existing parent (0 for the root or on any parse problem).
func pointerOffset(data []byte, ptr string) int {
	if ptr == "" || ptr == "/" {
		return skipSpace(data, 0)
	}
	var want []string
	for _, t := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		want = append(want, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	best := skipSpace(data, 0)
	// walk descends into the value starting now, looking for want[depth:].
	var walk func(depth int) bool
	walk = func(depth int) bool {
		start := skipSpace(data, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if depth == len(want) {
			best = start
			skipValue(dec, tok)
			return true
		}
		best = start
		d, ok := tok.(json.Delim)
		if !ok || (d != '{' && d != '[') {
			return false
		}
		for i := 0; dec.More(); i++ {
			key := fmt.Sprint(i)
			if d == '{' {
				kt, err := dec.Token()
				if err != nil {
					return false
				}
				key, _ = kt.(string)
			}
			if key == want[depth] {
				return walk(depth + 1)
			}
			vt, err := dec.Token()
			if err != nil {
				return false
			}
			skipValue(dec, vt)
		}
		return false
	}
	walk(0)
	return best
}

// skipValue consumes the rest of a value whose first token was tok.
func skipValue(dec *json.Decoder, tok json.Token) {
	d, ok := tok.(json.Delim)
	if !ok || (d != '{' && d != '[') {
		return
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
}

// skipSpace skips whitespace and the separators the decoder leaves behind.
func skipSpace(data []byte, i int) int {
	for i < len(data) && strings.IndexByte(" \t\r\n:,", data[i]) >= 0 {
		i++
	}
	return i
}
