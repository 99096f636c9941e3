package judge

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEnvelopeDecodedStrictly (L6): an HTTP envelope with repeated or
// case-variant keys escalates, through a real round trip, even when the
// verdict it would hand over is a clean allow.
func TestEnvelopeDecodedStrictly(t *testing.T) {
	allow := `"{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"x\"}"`
	esc := `"{\"decision\":\"escalate\",\"risk_level\":\"low\",\"reason\":\"x\"}"`
	choice := func(content string) string {
		return `[{"index":0,"message":{"role":"assistant","content":` + content + `}}]`
	}
	bodies := map[string]struct{ body, want string }{
		"Choices after choices":  {`{"choices":` + choice(esc) + `,"Choices":` + choice(allow) + `}`, `key "Choices" repeats "choices"`},
		"choices twice":          {`{"choices":` + choice(esc) + `,"choices":` + choice(allow) + `}`, `key "choices" repeats "choices"`},
		"content twice":          {`{"choices":[{"message":{"content":` + esc + `,"content":` + allow + `}}]}`, `key "content" repeats "content"`},
		"lone case variant":      {`{"CHOICES":` + choice(allow) + `}`, `key "CHOICES" is not "choices"`},
		"Message":                {`{"choices":[{"Message":{"content":` + allow + `}}]}`, `key "Message" is not "message"`},
		"duplicate unread field": {`{"id":"a","id":"b","choices":` + choice(allow) + `}`, `key "id" repeats "id"`},
	}
	for name, c := range bodies {
		t.Run(name, func(t *testing.T) {
			m := newModel(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(c.body))
			})
			j := New(Config{Endpoint: m.srv.URL, Model: "m"})
			d := j.Decide(context.Background(), "abc", nil, testCall)
			assert.Equal(t, Escalate, d.Outcome)
			assert.Contains(t, d.Details.Error, "ambiguous response")
			assert.True(t, strings.Contains(d.Details.Error, c.want), "error %q lacks %q", d.Details.Error, c.want)
		})
	}
	// A plain envelope with the same verdict is still an allow.
	m := newModel(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"id":"a","choices":` + choice(allow) + `,"usage":{"total_tokens":3}}`))
	})
	d := New(Config{Endpoint: m.srv.URL, Model: "m"}).Decide(context.Background(), "abc", nil, testCall)
	assert.Equal(t, Allow, d.Outcome)
}
