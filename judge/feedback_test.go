package judge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The fixed notes never claim the user decided.
func TestTierNotesNameWhoDecided(t *testing.T) {
	for _, note := range []string{AggressiveNote, PassiveNote} {
		assert.Contains(t, note, "perm-peer")
		assert.NotContains(t, strings.ToLower(note), "the user rejected")
		assert.NotContains(t, strings.ToLower(note), "the user approved")
	}
	assert.Contains(t, PassiveNote, "Do not retry")
}
