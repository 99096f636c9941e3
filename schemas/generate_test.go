package schemas

// The generator lives with the tests (TestSchemasUpToDate, make schemas),
// so the binary does not link the reflector, its YAML package and go/parser:
// every perm-peer process paid their package inits at start-up.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/invopop/jsonschema"

	"github.com/perm-peer/perm-peer/protocol"
)

// draft is the JSON Schema dialect of every generated file.
const draft = "https://json-schema.org/draft/2020-12/schema"

// Closed enums of the protocol: the reflector maps each named string type to
// exactly these values, so a wire value outside them is a schema error.
var enums = map[reflect.Type][]any{
	reflect.TypeFor[protocol.Mode]():              {protocol.ModeAsk, protocol.ModeAuto, protocol.ModeFull, protocol.ModeAI},
	reflect.TypeFor[protocol.HookAsks]():          {protocol.HookAsksHost, protocol.HookAsksPeer},
	reflect.TypeFor[protocol.Tier]():              {protocol.TierStandard, protocol.TierAggressive, protocol.TierPassive},
	reflect.TypeFor[protocol.ToolKind]():          {protocol.KindRead, protocol.KindEdit, protocol.KindDelete, protocol.KindMove, protocol.KindSearch, protocol.KindExecute, protocol.KindThink, protocol.KindFetch, protocol.KindSwitchMode, protocol.KindOther},
	reflect.TypeFor[protocol.Decision]():          {protocol.DecisionAllow, protocol.DecisionAsk, protocol.DecisionDeny},
	reflect.TypeFor[protocol.Risk]():              {protocol.RiskLow, protocol.RiskMedium, protocol.RiskHigh, protocol.RiskCritical},
	reflect.TypeFor[protocol.DecidedBy]():         {protocol.ByFloor, protocol.ByRule, protocol.ByGrant, protocol.BySession, protocol.ByGate, protocol.ByMode, protocol.ByJudge, protocol.ByUser, protocol.ByHeadless, protocol.ByHost},
	reflect.TypeFor[protocol.ReplyKind]():         {protocol.ReplyOnce, protocol.ReplyAlways, protocol.ReplyReject},
	reflect.TypeFor[protocol.ACPPermissionKind](): {protocol.ACPAllowOnce, protocol.ACPAllowAlways, protocol.ACPRejectOnce, protocol.ACPRejectAlways},
	reflect.TypeFor[protocol.Source]():            {protocol.SourceUser, protocol.SourceAuto, protocol.SourceJudge, protocol.SourceSystem, protocol.SourceHost},
	reflect.TypeFor[protocol.FactKind]():          {protocol.FactExec, protocol.FactRead, protocol.FactWrite, protocol.FactDelete, protocol.FactNetwork, protocol.FactEnv, protocol.FactOpaque, protocol.FactTool},
}

var replyType = reflect.TypeFor[protocol.PermissionReply]()

// mapper is the reflector hook that keeps protocol/ plain data: enums, the
// PermissionReply union and JSON-RPC ids are described here, not by methods
// on the protocol types. It returns a fresh schema per call because the
// reflector writes field descriptions into what it gets.
func mapper(t reflect.Type) *jsonschema.Schema {
	if vals, ok := enums[t]; ok {
		enum := make([]any, len(vals))
		for i, v := range vals {
			enum[i] = reflect.ValueOf(v).String()
		}
		return &jsonschema.Schema{Type: "string", Enum: enum}
	}
	switch {
	case t == replyType:
		// Resolved to the canonical or legacy union when the file is
		// assembled (see addReplyDefs).
		return &jsonschema.Schema{Ref: "#/$defs/PermissionReply"}
	case t.Kind() == reflect.Interface:
		// The only interface fields are JSON-RPC request ids.
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer"}}}
	}
	return nil
}

func newReflector() *jsonschema.Reflector {
	return &jsonschema.Reflector{
		Anonymous:      true, // $id is set per file
		ExpandedStruct: true,
		// Openness is decided per type in finish, not globally.
		AllowAdditionalProperties: true,
		Mapper:                    mapper,
	}
}

// fileKind says how strictly a file treats unknown object keys.
type fileKind int

const (
	// kindParams: editors add fields over time, so unknown keys pass,
	// except in the objects listed in alwaysClosed.
	kindParams fileKind = iota
	// kindResult: the exact shape the peer emits; extensions go in _meta.
	kindResult
	// kindPolicy: a typo in a policy file must be an error.
	kindPolicy
)

// alwaysClosed are objects where an unknown key is almost surely a typo that
// would change meaning: a misspelt setting would silently fall back to a
// looser default, a misspelt "feedback" would drop the user's note.
var alwaysClosed = map[string]bool{
	"Settings":    true,
	"ReplyOnce":   true,
	"ReplyAlways": true,
	"ReplyReject": true,
}

// alwaysOpen are extension objects (ACP's _meta convention): readers must
// ignore keys they do not know.
var alwaysOpen = map[string]bool{"ReplyMeta": true}

// Generate builds every schema file from the protocol types, keyed by file
// name, as the indented JSON that is checked in under schemas/.
func Generate() (map[string][]byte, error) {
	out := map[string][]byte{}
	add := func(name string, s *jsonschema.Schema) error {
		b, err := encode(name, s)
		if err != nil {
			return err
		}
		out[name] = b
		return nil
	}
	for _, m := range methodSpecs {
		if m.params != nil {
			if err := add(paramsFile[m.name], build(m.params, kindParams, m.name+" params")); err != nil {
				return nil, err
			}
		}
		if m.result != nil {
			if err := add(resultFile[m.name], build(m.result, kindResult, m.name+" result")); err != nil {
				return nil, err
			}
		}
	}
	if err := add(PermissionReplySchema, build(replyLegacy{}, kindParams, "PermissionReply")); err != nil {
		return nil, err
	}
	if err := add(PolicySchema, build(protocol.Policy{}, kindPolicy, "perm-peer policy file")); err != nil {
		return nil, err
	}
	return out, nil
}

// build reflects one root type and applies perm-peer's constraints.
func build(v any, kind fileKind, title string) *jsonschema.Schema {
	var s *jsonschema.Schema
	switch v.(type) {
	case resultNull:
		s = &jsonschema.Schema{Type: "null"}
	case replyCanonical, replyLegacy:
		s = &jsonschema.Schema{Ref: "#/$defs/PermissionReply", Definitions: jsonschema.Definitions{}}
	default:
		t := reflect.TypeOf(v)
		s = newReflector().Reflect(v)
		if t == reflect.TypeFor[protocol.ACPSessionUpdateParams]() {
			// update is raw in Go; its tool_call kinds are checked as ACP
			// ToolCallUpdates (see tighten).
			addDef(s, "ACPToolCallUpdate", protocol.ACPToolCallUpdate{})
			addDef(s, "Location", protocol.Location{})
		}
		tighten(t.Name(), s, kind)
		for name, d := range s.Definitions {
			tighten(name, d, kind)
		}
		closeObjects(t.Name(), s, kind)
		for name, d := range s.Definitions {
			closeObjects(name, d, kind)
		}
	}
	if usesReply(s) {
		// Only what an editor sends may be the legacy bare string; the peer
		// always emits the object form.
		_, legacy := v.(replyLegacy)
		addReplyDefs(s, legacy)
	}
	s.Version = draft
	s.Title = title
	if len(s.Definitions) == 0 {
		s.Definitions = nil
	}
	return s
}

// addDef reflects v into s's $defs under name.
func addDef(s *jsonschema.Schema, name string, v any) {
	d := newReflector().Reflect(v)
	d.Version = ""
	d.Definitions = nil
	s.Definitions[name] = d
}

// usesReply reports whether the file refers to the PermissionReply union.
func usesReply(s *jsonschema.Schema) bool {
	b, _ := json.Marshal(s)
	return bytes.Contains(b, []byte(`"#/$defs/PermissionReply"`))
}

// addReplyDefs defines PermissionReply as a oneOf of its three variants
// (reply once|always|reject, each with optional feedback and _meta), plus,
// when legacy is set, the deprecated bare string form that
// PermissionReply.UnmarshalJSON still accepts from older editors.
func addReplyDefs(s *jsonschema.Schema, legacy bool) {
	if s.Definitions == nil {
		s.Definitions = jsonschema.Definitions{}
	}
	addDef(s, "ReplyMeta", protocol.ReplyMeta{})
	s.Definitions["ReplyMeta"].Description = "perm-peer's extension object (ACP _meta convention); readers ignore keys they do not know."
	union := &jsonschema.Schema{
		Description: "The permission reply: once, always or reject, each with an optional free-text note.",
	}
	for _, k := range []struct {
		def  string
		kind protocol.ReplyKind
		doc  string
	}{
		{"ReplyOnce", protocol.ReplyOnce, "Run this call, once."},
		{"ReplyAlways", protocol.ReplyAlways, "Run this call and grant the pattern shown as alwaysCovers."},
		{"ReplyReject", protocol.ReplyReject, "Do not run this call; feedback is what the agent is told."},
	} {
		props := jsonschema.NewProperties()
		props.Set("reply", &jsonschema.Schema{Const: string(k.kind)})
		props.Set("feedback", &jsonschema.Schema{Type: "string", Description: "The user's note, verbatim."})
		props.Set("_meta", &jsonschema.Schema{Ref: "#/$defs/ReplyMeta"})
		s.Definitions[k.def] = &jsonschema.Schema{
			Type:                 "object",
			Description:          k.doc,
			Properties:           props,
			Required:             []string{"reply"},
			AdditionalProperties: jsonschema.FalseSchema,
		}
		union.OneOf = append(union.OneOf, &jsonschema.Schema{Ref: "#/$defs/" + k.def})
	}
	if legacy {
		union.OneOf = append(union.OneOf, &jsonschema.Schema{
			Type:        "string",
			Enum:        []any{string(protocol.ReplyOnce), string(protocol.ReplyAlways), string(protocol.ReplyReject)},
			Deprecated:  true,
			Description: "Legacy bare form: \"once\" reads as {\"reply\":\"once\"}. Accepted from editors, never emitted.",
		})
	}
	s.Definitions["PermissionReply"] = union
}

// closeObjects sets additionalProperties per the file kind and the open/closed
// lists; only object schemas with declared properties are touched.
func closeObjects(name string, s *jsonschema.Schema, kind fileKind) {
	if s.Type != "object" || s.Properties == nil || alwaysOpen[name] {
		return
	}
	if kind != kindParams || alwaysClosed[name] {
		s.AdditionalProperties = jsonschema.FalseSchema
	}
}

func minLen(n uint64) *uint64 { return &n }

// prop returns the named property of an object schema, or nil.
func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	if s.Properties == nil {
		return nil
	}
	p, _ := s.Properties.Get(name)
	return p
}

// nonEmptyKeys are identifiers that mean nothing when empty.
var nonEmptyKeys = []string{"sessionId", "toolCallId", "optionId"}

// nullable lets the named optional properties also be null, as ACP's own
// schema does for every optional field (encoding/json reads null as absent).
func nullable(s *jsonschema.Schema, names ...string) {
	for _, n := range names {
		p := prop(s, n)
		if p == nil || slices.Contains(s.Required, n) || isAnything(p) {
			continue
		}
		s.Properties.Set(n, &jsonschema.Schema{AnyOf: []*jsonschema.Schema{p, {Type: "null"}}})
	}
}

// isAnything reports a schema without constraints (json.RawMessage).
func isAnything(p *jsonschema.Schema) bool {
	b, _ := json.Marshal(p)
	return string(b) == "true" || string(b) == "{}"
}

// tighten adds the constraints Go types cannot express, per type name.
func tighten(name string, s *jsonschema.Schema, kind fileKind) {
	for _, k := range nonEmptyKeys {
		if p := prop(s, k); p != nil && p.Type == "string" {
			p.MinLength = minLen(1)
		}
	}
	if p := prop(s, "turn"); p != nil {
		p.Minimum = "0"
	}
	// json.RawMessage reflects to "anything"; _meta is always an object.
	if p := prop(s, "_meta"); p != nil && p.Ref == "" {
		p.Type = "object"
	}
	switch name {
	case "InitializeParams", "InitializeResult":
		prop(s, "protocolVersion").Minimum = "1"
	case "Location":
		prop(s, "path").MinLength = minLen(1)
		prop(s, "line").Minimum = "0"
		if kind == kindParams {
			nullable(s, "line") // ACP's ToolCallLocation.line is integer|null
		}
	case "Project":
		prop(s, "root").MinLength = minLen(1)
	case "ToolCall":
		// The gate reads command/path/url keys out of rawInput; anything but
		// an object would be silently unanalysable.
		prop(s, "rawInput").Type = "object"
	case "AskParams":
		o := prop(s, "options")
		o.MinItems = minLen(1)
		o.UniqueItems = true
	case "AuditParams":
		prop(s, "limit").Minimum = "0"
	case "GrantsRevokeParams":
		prop(s, "id").MinLength = minLen(1)
	case "ACPSessionUpdateParams":
		// ACP discriminates every update on sessionUpdate; tool_call and
		// tool_call_update must be ToolCallUpdates, other kinds pass through.
		props := jsonschema.NewProperties()
		props.Set("sessionUpdate", &jsonschema.Schema{Type: "string", MinLength: minLen(1)})
		ifProps := jsonschema.NewProperties()
		ifProps.Set("sessionUpdate", &jsonschema.Schema{Enum: []any{"tool_call", "tool_call_update"}})
		u := prop(s, "update")
		u.Type = "object"
		u.Properties = props
		u.Required = []string{"sessionUpdate"}
		u.If = &jsonschema.Schema{Properties: ifProps}
		u.Then = &jsonschema.Schema{Ref: "#/$defs/ACPToolCallUpdate"}
	case "ACPToolCallUpdate":
		nullable(s, "title", "kind", "status", "locations", "content", "_meta")
	case "ACPRequestPermissionParams":
		nullable(s, "_meta")
	case "ACPOutcome":
		prop(s, "outcome").Enum = []any{protocol.ACPOutcomeSelected, protocol.ACPOutcomeCancelled}
		// A selected outcome must say which option.
		ifProps := jsonschema.NewProperties()
		ifProps.Set("outcome", &jsonschema.Schema{Const: protocol.ACPOutcomeSelected})
		s.If = &jsonschema.Schema{Properties: ifProps, Required: []string{"outcome"}}
		s.Then = &jsonschema.Schema{Required: []string{"optionId"}}
	case "JudgeDetails":
		prop(s, "verdict").Enum = []any{"allow", "reject", "escalate"}
	case "UserRule":
		prop(s, "kind").Enum = []any{"always", "approved_with_note", "rejected_with_note", "grant"}
	case "AuditRecord":
		prop(s, "ts").Format = "date-time"
	case "Policy":
		tightenPolicy(s)
	case "PolicyExample":
		prop(s, "want").Enum = []any{"allow", "ask", "deny"}
		prop(s, "call").MinLength = minLen(1)
		// a shell command, or a tool with a path or a URL
		s.OneOf = []*jsonschema.Schema{{Required: []string{"call"}}, {Required: []string{"tool"}}}
	case "JudgeConfig":
		prop(s, "provider").Enum = []any{protocol.ProviderOpenAI, protocol.ProviderAnthropic}
		prop(s, "endpoint").Pattern = `^https?://[^\s]+$`
		prop(s, "model").MinLength = minLen(1)
		prop(s, "apiKeyEnv").Pattern = `^[A-Za-z_][A-Za-z0-9_]*$`
		prop(s, "timeoutMs").Minimum = "0"
		prop(s, "maxTokens").Minimum = "0"
	}
}

// ruleSyntax is the shape of a policy rule: a tool name, optionally with a
// non-empty argument in parentheses — Bash(go test *), Read(src/**),
// WebFetch(domain:*.example.com), mcp__server__tool, mcp__server__*. The gate parses the
// argument; the schema only catches what can never be a rule (empty string,
// unbalanced parenthesis, stray spaces, newlines).
const ruleSyntax = `^[A-Za-z_][A-Za-z0-9_.:*-]*(\(.+\))?$`

func tightenPolicy(s *jsonschema.Schema) {
	for _, list := range []string{"allow", "ask", "deny"} {
		items := prop(s, list).Items
		items.MinLength = minLen(1)
		items.Pattern = ruleSyntax
	}
	prop(s, "sensitive").Items.MinLength = minLen(1)
	tp := prop(s, "trustedProjects").Items
	tp.MinLength = minLen(1)
	tp.Pattern = `^[/~]` // absolute, or under the home directory
	prop(s, "askTimeoutMs").Minimum = "0"
	prop(s, "$schema").Description = "Optional URI of this schema, for editors."
}

// encode renders a schema as the checked-in bytes: two-space indented JSON
// with a trailing newline. $defs come out sorted (a Go map); properties keep
// the field order of the Go type.
func encode(name string, s *jsonschema.Schema) ([]byte, error) {
	s.ID = jsonschema.ID(BaseID + name)
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode schema %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("indent schema %s: %w", name, err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
