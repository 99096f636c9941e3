package main

import (
	"encoding/json"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		var d []time.Duration
		for _, v := range n {
			d = append(d, time.Duration(v)*time.Millisecond)
		}
		return d
	}
	cases := []struct {
		in   []time.Duration
		q    float64
		want time.Duration
	}{
		{ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{ms(1, 2, 3, 4, 5), 0.5, 3 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.99, 10 * time.Millisecond},
		{ms(7), 0.99, 7 * time.Millisecond},
		{nil, 0.5, 0},
	}
	for _, c := range cases {
		if got := percentile(c.in, c.q); got != c.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", c.in, c.q, got, c.want)
		}
	}
}

func TestDecisionBody(t *testing.T) {
	for _, c := range []struct {
		call fastCall
		tool string
	}{{shellCall(`git "status"`), "bash"}, {readCall("README.md"), "read"}} {
		var m struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
			Params struct {
				SessionID string `json:"sessionId"`
				ToolCall  struct {
					ToolCallID string `json:"toolCallId"`
					Tool       string `json:"tool"`
				} `json:"toolCall"`
			} `json:"params"`
		}
		b := decisionBody(42, c.call)
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if m.ID != 42 || m.Method != "session/requestPermission" || m.Params.SessionID != "bench" ||
			m.Params.ToolCall.ToolCallID != "c42" || m.Params.ToolCall.Tool != c.tool {
			t.Fatalf("decoded %+v from %s", m, b)
		}
	}
}

func TestVerifyReply(t *testing.T) {
	cases := []struct {
		name     string
		r        response
		fromGate bool
		ok       bool
	}{
		{"gate once", response{ID: json.RawMessage("5"), Result: json.RawMessage(`{"reply":"once","_meta":{"decidedBy":"gate"}}`)}, true, true},
		{"echo once", response{ID: json.RawMessage("5"), Result: json.RawMessage(`{"reply":"once"}`)}, false, true},
		{"once not by the gate", response{ID: json.RawMessage("5"), Result: json.RawMessage(`{"reply":"once","_meta":{"decidedBy":"user"}}`)}, true, false},
		{"reject", response{ID: json.RawMessage("5"), Result: json.RawMessage(`{"reply":"reject","_meta":{"decidedBy":"gate"}}`)}, true, false},
		{"wrong id", response{ID: json.RawMessage("6"), Result: json.RawMessage(`{"reply":"once"}`)}, false, false},
	}
	for _, c := range cases {
		if err := verifyReply(c.r, 5, c.fromGate); (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}
