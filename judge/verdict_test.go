package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/perm-peer/perm-peer/protocol"
)

// The verdict table of SPEC §7, every row.
func TestParseVerdictTable(t *testing.T) {
	tests := []struct {
		decision, risk string
		want           Outcome
	}{
		{"allow", "low", Allow},
		{"allow", "medium", Allow},
		{"allow", "high", Allow},
		{"allow", "critical", Escalate},
		{"deny", "low", Escalate},
		{"deny", "medium", Escalate},
		{"deny", "high", Escalate},
		{"deny", "critical", Reject},
		{"escalate", "low", Escalate},
		{"escalate", "medium", Escalate},
		{"escalate", "high", Escalate},
		{"escalate", "critical", Escalate},
	}
	for _, tc := range tests {
		t.Run(tc.decision+"+"+tc.risk, func(t *testing.T) {
			raw := `{"decision":"` + tc.decision + `","risk_level":"` + tc.risk + `","reason":"because"}`
			got, risk, reason, err := ParseVerdict(raw)
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, protocol.Risk(tc.risk), risk)
			assert.Equal(t, "because", reason)
		})
	}
}

// Accepted spellings of one well-formed verdict.
func TestParseVerdictAcceptedForms(t *testing.T) {
	tests := []struct{ name, raw string }{
		{"plain", `{"decision":"allow","risk_level":"low","reason":"tests"}`},
		{"whitespace", " \n\t{ \"decision\" : \"allow\",\n \"risk_level\": \"low\", \"reason\": \"tests\" }\n\n"},
		{"key order", `{"reason":"tests","risk_level":"low","decision":"allow"}`},
		{"json fence", "```json\n{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"tests\"}\n```"},
		{"JSON fence upper", "```JSON\n{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"tests\"}\n```"},
		{"bare fence", "```\n{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"tests\"}\n```"},
		{"fence one line", "```json {\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"tests\"}```"},
		{"fence and whitespace", "\n  ```json\n{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"tests\"}\n```  \n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, risk, reason, err := ParseVerdict(tc.raw)
			assert.NoError(t, err)
			assert.Equal(t, Allow, got)
			assert.Equal(t, protocol.RiskLow, risk)
			assert.Equal(t, "tests", reason)
		})
	}
}

// Every malformed reply escalates with an error; none is read as allow.
func TestParseVerdictMalformedEscalates(t *testing.T) {
	tests := []struct{ name, raw, errPart string }{
		{"empty", "", "empty reply"},
		{"blank", " \n\t ", "empty reply"},
		{"prose only", "I think this is fine, allow.", "not a JSON object"},
		{"prose before", `Sure! {"decision":"allow","risk_level":"low","reason":"x"}`, "not a JSON object"},
		{"prose after", `{"decision":"allow","risk_level":"low","reason":"x"} Hope this helps`, "trailing data"},
		{"two objects", `{"decision":"allow","risk_level":"low","reason":"x"}{"decision":"allow","risk_level":"low","reason":"x"}`, "trailing data"},
		{"two objects newline", "{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"x\"}\n{\"decision\":\"deny\",\"risk_level\":\"critical\",\"reason\":\"y\"}", "trailing data"},
		{"extra key", `{"decision":"allow","risk_level":"low","reason":"x","confidence":"0.9"}`, `unexpected key "confidence"`},
		{"missing reason", `{"decision":"allow","risk_level":"low"}`, `missing key "reason"`},
		{"missing decision", `{"risk_level":"low","reason":"x"}`, `missing key "decision"`},
		{"empty object", `{}`, `missing key "decision"`},
		{"duplicate key", `{"decision":"deny","decision":"allow","risk_level":"low","reason":"x"}`, `duplicate key "decision"`},
		{"key case", `{"Decision":"allow","risk_level":"low","reason":"x"}`, `unexpected key "Decision"`},
		{"typo key", `{"decision":"allow","risk":"low","reason":"x"}`, `unexpected key "risk"`},
		{"unknown decision", `{"decision":"approve","risk_level":"low","reason":"x"}`, `unknown decision "approve"`},
		{"decision case", `{"decision":"Allow","risk_level":"low","reason":"x"}`, `unknown decision "Allow"`},
		{"decision padded", `{"decision":" allow","risk_level":"low","reason":"x"}`, `unknown decision " allow"`},
		{"decision substring", `{"decision":"allow_once","risk_level":"low","reason":"x"}`, `unknown decision "allow_once"`},
		{"typo risk", `{"decision":"allow","risk_level":"lwo","reason":"x"}`, `unknown risk_level "lwo"`},
		{"unknown risk", `{"decision":"allow","risk_level":"none","reason":"x"}`, `unknown risk_level "none"`},
		{"empty risk", `{"decision":"allow","risk_level":"","reason":"x"}`, `unknown risk_level ""`},
		{"number value", `{"decision":"allow","risk_level":1,"reason":"x"}`, `"risk_level" is not a string`},
		{"null value", `{"decision":null,"risk_level":"low","reason":"x"}`, `"decision" is not a string`},
		{"bool value", `{"decision":true,"risk_level":"low","reason":"x"}`, `"decision" is not a string`},
		{"nested object", `{"decision":{"v":"allow"},"risk_level":"low","reason":"x"}`, `"decision" is not a string`},
		{"array", `[{"decision":"allow","risk_level":"low","reason":"x"}]`, "not a JSON object"},
		{"truncated", `{"decision":"allow","risk_level":"low","reason":"x`, "verdict:"},
		{"trailing comma", `{"decision":"allow","risk_level":"low","reason":"x",}`, "verdict:"},
		{"single quotes", `{'decision':'allow','risk_level':'low','reason':'x'}`, "verdict:"},
		{"unterminated fence", "```json\n{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"x\"}", "unterminated code fence"},
		{"two fences", "```json\n{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"x\"}\n```\n```json\n{}\n```", "more than one code fence"},
		{"other language fence", "```yaml\n{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"x\"}\n```", "unexpected code fence"},
		{"prose in fence", "```json\nHere: {\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"x\"}\n```", "not a JSON object"},
		{"prose after fence", "```json\n{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"x\"}\n```\nDone.", "unterminated code fence"},
		{"empty fence", "```json\n```", "not a JSON object"},
		{"fence marks only", "```", "unexpected code fence"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, risk, reason, err := ParseVerdict(tc.raw)
			assert.Equal(t, Escalate, got)
			assert.Equal(t, protocol.Risk(""), risk)
			assert.Equal(t, "", reason)
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tc.errPart)
			}
		})
	}
}

func TestParseVerdictLongReasonClipped(t *testing.T) {
	long := make([]byte, 2000)
	for i := range long {
		long[i] = 'r'
	}
	_, _, reason, err := ParseVerdict(`{"decision":"escalate","risk_level":"high","reason":"` + string(long) + `"}`)
	assert.NoError(t, err)
	assert.Equal(t, MaxReasonBytes+len("…"), len(reason))
}
