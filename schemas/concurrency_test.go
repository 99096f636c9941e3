package schemas

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidateParamsConcurrently: the peer validates each request in its own
// goroutine; the compiled schemas are shared (run with -race). Each round
// starts from an empty cache, so that many goroutines race to the first
// compile: a waiter must never see the schema before it is compiled (a
// nil schema panicked in a peer under load).
func TestValidateParamsConcurrently(t *testing.T) {
	for range 20 {
		compiled.Clear()
		validateConcurrently(t)
	}
}

func validateConcurrently(t *testing.T) {
	good := json.RawMessage(`{"sessionId":"s1","toolCall":{"tool":"bash","rawInput":{"command":"ls"}}}`)
	bad := json.RawMessage(`{"sessionId":"s1","toolCall":{"kind":"run"}}`)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, 64)
	for i := range errs {
		wg.Go(func() {
			<-start
			p := good
			if i%2 == 1 {
				p = bad
			}
			errs[i] = ValidateParams("session/requestPermission", p)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if i%2 == 0 {
			assert.NoError(t, err, "request %d", i)
			continue
		}
		var ve *Error
		if assert.True(t, errors.As(err, &ve), "request %d: %v", i, err) {
			assert.Equal(t, []Cause{{Pointer: "/toolCall/kind", Message: `value must be one of "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"`}}, ve.Causes)
		}
	}
}

// FuzzValidateParams: arbitrary bytes never panic, and every failure is
// reported as an *Error with at least one cause.
func FuzzValidateParams(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `[]`, `"x"`, `{"sessionId":"s","toolCall":{"locations":[{}]}}`,
		`{"sessionId":"s","toolCall":{"rawInput":{"a":[1,{"b":null}]}},"~1/x":{"a/b":1}}`, `{"reply":"once","x":1}`} {
		f.Add("session/requestPermission", s)
		f.Add("initialize", s)
		f.Add("session/request_permission", s)
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		err := ValidateParams(method, json.RawMessage(params))
		if err == nil {
			return
		}
		var ve *Error
		if !errors.As(err, &ve) {
			t.Fatalf("non-schema error: %v", err)
		}
		if len(ve.Causes) == 0 {
			t.Fatalf("no causes for %q", params)
		}
	})
}

// A caller that finds a schema's entry before the goroutine that stored it
// has compiled it must still get the compiled schema, not an empty one.
func TestLoadOneFindsEntryBeforeItsCompile(t *testing.T) {
	compiled.Clear()
	name, _ := ParamsSchema("session/requestPermission")
	compiled.Store(name, &compiledSchema{name: name}) // stored, not compiled yet
	s, doc, err := loadOne(name)
	assert.NoError(t, err)
	assert.NotNil(t, s)
	assert.NotNil(t, doc)
	assert.NoError(t, ValidateParams("session/requestPermission", json.RawMessage(`{"sessionId":"s1","toolCall":{"tool":"bash"}}`)))
}
