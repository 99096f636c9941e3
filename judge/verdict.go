package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// MaxReasonBytes caps the model's reason as recorded.
const MaxReasonBytes = 500

// ParseVerdict reads the model's reply strictly (SPEC §7). The reply must be
// exactly one JSON object, optionally inside one ```json (or ```) fence, with
// exactly the string keys decision, risk_level and reason, each once.
//
//	allow    + low|medium|high → Allow
//	allow    + critical        → Escalate
//	deny     + critical        → Reject
//	deny     + low|medium|high → Escalate
//	escalate + any risk        → Escalate
//
// Anything else — prose, an unknown or misspelt value, a missing, extra or
// duplicate key, a non-string value, two objects, an empty reply — returns
// Escalate with an error. Nothing is ever matched as a substring.
func ParseVerdict(raw string) (Outcome, protocol.Risk, string, error) {
	v, err := parseModelVerdict(raw)
	return v.outcome, v.risk, v.reason, err
}

// modelVerdict is a parsed reply: the outcome, and the model's own
// decision ("deny" that became Escalate is not doubt: see peer's tiers).
type modelVerdict struct {
	outcome  Outcome
	decision string
	risk     protocol.Risk
	reason   string
}

func parseModelVerdict(raw string) (modelVerdict, error) {
	esc := modelVerdict{outcome: Escalate}
	body, err := unfence(raw)
	if err != nil {
		return esc, err
	}
	fields, err := strictObject(body)
	if err != nil {
		return esc, err
	}
	risk := protocol.Risk(fields["risk_level"])
	switch risk {
	case protocol.RiskLow, protocol.RiskMedium, protocol.RiskHigh, protocol.RiskCritical:
	default:
		return esc, fmt.Errorf("verdict: unknown risk_level %q", fields["risk_level"])
	}
	reason := fields["reason"]
	if len(reason) > MaxReasonBytes {
		reason = reason[:cutHead(reason, MaxReasonBytes)] + "…"
	}
	v := modelVerdict{outcome: Escalate, decision: fields["decision"], risk: risk, reason: reason}
	switch v.decision {
	case "allow":
		if risk != protocol.RiskCritical {
			v.outcome = Allow
		}
	case "deny":
		if risk == protocol.RiskCritical {
			v.outcome = Reject
		}
	case "escalate":
	default:
		return esc, fmt.Errorf("verdict: unknown decision %q", fields["decision"])
	}
	return v, nil
}

// unfence trims whitespace and removes one optional ``` or ```json fence.
func unfence(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", errors.New("verdict: empty reply")
	}
	if !strings.HasPrefix(s, "```") {
		return s, nil
	}
	inner := s[3:]
	if len(inner) >= 4 && strings.EqualFold(inner[:4], "json") {
		inner = inner[4:]
	}
	// The fence's info string must end here: "```jsonx" or "```yaml" is not ours.
	if inner == "" || !(inner[0] == '{' || inner[0] == ' ' || inner[0] == '\n' || inner[0] == '\r' || inner[0] == '\t') {
		return "", errors.New("verdict: unexpected code fence")
	}
	if !strings.HasSuffix(inner, "```") {
		return "", errors.New("verdict: unterminated code fence")
	}
	inner = strings.TrimSpace(strings.TrimSuffix(inner, "```"))
	if strings.Contains(inner, "```") {
		return "", errors.New("verdict: more than one code fence")
	}
	return inner, nil
}

// verdictKeys are the keys a verdict must have, each exactly once.
var verdictKeys = map[string]bool{"decision": true, "risk_level": true, "reason": true}

// strictObject decodes exactly one flat JSON object of verdictKeys to string
// values, token by token so that duplicate keys, non-string values and
// trailing data are all caught.
func strictObject(s string) (map[string]string, error) {
	if !strings.HasPrefix(s, "{") {
		return nil, errors.New("verdict: reply is not a JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if _, err := dec.Token(); err != nil { // the '{' checked above
		return nil, fmt.Errorf("verdict: %w", err)
	}
	fields := make(map[string]string, 3)
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("verdict: %w", err)
		}
		key, _ := kt.(string)
		if !verdictKeys[key] {
			return nil, fmt.Errorf("verdict: unexpected key %q", key)
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("verdict: duplicate key %q", key)
		}
		vt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("verdict: %w", err)
		}
		v, ok := vt.(string)
		if !ok {
			return nil, fmt.Errorf("verdict: %q is not a string", key)
		}
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, fmt.Errorf("verdict: %w", err)
	}
	for _, k := range []string{"decision", "risk_level", "reason"} {
		if _, ok := fields[k]; !ok {
			return nil, fmt.Errorf("verdict: missing key %q", k)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("verdict: trailing data after the JSON object")
	}
	return fields, nil
}
