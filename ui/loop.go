package ui

import (
	"errors"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
)

// The review loop's operations the pages call: why, rule from a decision,
// replay. They are the review package's; until it lands they say so.

var errNoReview = errors.New("not available yet: the review loop is not wired in")

// ruleChange is a rule a decision would become and where it goes.
type ruleChange struct {
	Rule, File, Diff string
}

type replayResult struct {
	Summary string
	Changes []replayChange
}

type replayChange struct {
	ID, Project, Root, ProjectName, WhyHref, Action string
	Was, WasClass, Now, NowClass, Why               string
}

func (s *source) why(ref recordRef) (entry, string, error) {
	return entry{}, "", errNoReview
}

func (s *source) planRule(ref recordRef, effect string) (entry, ruleChange, error) {
	return entry{}, ruleChange{}, errNoReview
}

func (s *source) writeRule(ref recordRef, effect string) (ruleChange, error) {
	return ruleChange{}, errNoReview
}

func (s *source) replay(policy []byte, project string, since time.Time) (replayResult, error) {
	return replayResult{}, errNoReview
}

// actionText is the call as one line.
func actionText(rec protocol.AuditRecord) string {
	if rec.Action != "" {
		return rec.Action
	}
	a := rec.ToolCall.Tool
	if len(rec.ToolCall.RawInput) > 0 {
		a += " " + string(rec.ToolCall.RawInput)
	}
	return a
}

func ruleable(rec protocol.AuditRecord) bool { return rec.Action != "" }
