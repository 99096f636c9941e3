package schemas

import (
	"encoding/json"
	"testing"
)

// BenchmarkValidateParams measures the per-request cost of the peer's
// params check on the hot method.
func BenchmarkValidateParams(b *testing.B) {
	params := json.RawMessage(`{"sessionId":"s1","turn":3,"toolCall":{"toolCallId":"c7","tool":"bash","kind":"execute",
		"title":"Run the tests","rawInput":{"command":"go test ./..."},"locations":[{"path":"/repo/go.mod"}]}}`)
	if err := ValidateParams("session/requestPermission", params); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateParams("session/requestPermission", params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateParamsInvalid(b *testing.B) {
	params := json.RawMessage(`{"sessionId":"","toolCall":{"tool":"bash","kind":"exec","rawInput":"ls"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if ValidateParams("session/requestPermission", params) == nil {
			b.Fatal("want an error")
		}
	}
}
