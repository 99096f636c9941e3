package ui

import (
	"errors"
	"time"

	"github.com/perm-peer/perm-peer/review"
)

// The review loop's rule and replay operations the pages call. They are
// the review package's; until it has them they say so.

var errNoReview = errors.New("not available yet: the review loop has no such operation")

// ruleChange is a rule a decision would become and where it goes.
type ruleChange struct {
	Rule, File, Diff string
}

type replayResult struct {
	Summary string
	Changes []replayChange
}

type replayChange struct {
	ID, Root, ProjectName, WhyHref, Action string
	Was, WasClass, Now, NowClass, Why      string
}

func (s *source) planRule(e review.Entry, effect string) (ruleChange, error) {
	return ruleChange{}, errNoReview
}

func (s *source) writeRule(e review.Entry, effect string) (ruleChange, error) {
	return ruleChange{}, errNoReview
}

func (s *source) replay(policy []byte, project string, since time.Time) (replayResult, error) {
	return replayResult{}, errNoReview
}
