package judge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRejectFeedback(t *testing.T) {
	tests := []struct{ name, reason, want string }{
		{"reason", "Deletes the home directory.",
			"Rejected by perm-peer's automatic judge, not by the user: Deletes the home directory. Do not retry this call or a variation of it; ask the user in the chat if it is needed."},
		{"multiline reason", "  wipes\n\tdata ",
			"Rejected by perm-peer's automatic judge, not by the user: wipes data. Do not retry this call or a variation of it; ask the user in the chat if it is needed."},
		{"no reason", "",
			"Rejected by perm-peer's automatic judge, not by the user: no reason given. Do not retry this call or a variation of it; ask the user in the chat if it is needed."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, RejectFeedback(tc.reason))
		})
	}
	long := RejectFeedback(strings.Repeat("x", 1000))
	assert.Contains(t, long, strings.Repeat("x", 300)+"….")
	assert.NotContains(t, long, strings.Repeat("x", 301))
}

// The fixed notes never claim the user decided.
func TestTierNotesNameWhoDecided(t *testing.T) {
	for _, note := range []string{AggressiveNote, PassiveNote, RejectFeedback("x")} {
		assert.Contains(t, note, "perm-peer")
		assert.NotContains(t, strings.ToLower(note), "the user rejected")
		assert.NotContains(t, strings.ToLower(note), "the user approved")
	}
	assert.Contains(t, PassiveNote, "Do not retry")
}
