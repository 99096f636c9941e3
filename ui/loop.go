package ui

import (
	"errors"
	"fmt"
	"time"

	"github.com/perm-peer/perm-peer/review"
)

// The review loop's rule and replay operations the pages call. They are
// the review package's; until it has them they say so.

var errNoReview = errors.New("not available yet: the review loop has no such operation")

// ruleChange is a rule a decision would become and where it goes, as the
// rule page shows it.
type ruleChange struct {
	Rule   string // the pattern
	Covers string
	Where  string // the file edited, or the project's grants
	Diff   string
	plan   review.RuleChange
}

type replayResult struct {
	Summary string
	Changes []replayChange
}

type replayChange struct {
	ID, Root, ProjectName, WhyHref, Action string
	Was, WasClass, Now, NowClass, Why      string
}

// planRule is what `perm-peer allow|deny ID` would write (project
// scope, its default); a *review.Refusal or review.ErrAlready says why
// nothing would be.
func (s *source) planRule(e review.Entry, effect string) (ruleChange, error) {
	c, err := s.r.PlanRule(e, effect, review.ScopeProject)
	if err != nil {
		return ruleChange{}, err
	}
	rc := ruleChange{Rule: c.Pattern, Covers: c.Covers, Where: c.File, Diff: c.Diff, plan: c}
	if c.Grant {
		rc.Where = "the project's grants (what answering \"always\" saves), recorded in its audit log as your act"
	}
	return rc, nil
}

// writeRule plans again and writes the rule, if it is still the one the
// user was shown (want).
func (s *source) writeRule(e review.Entry, effect, want string) (ruleChange, error) {
	rc, err := s.planRule(e, effect)
	if err != nil {
		return rc, err
	}
	if rc.Rule != want {
		return rc, fmt.Errorf("%w: the rule is now %s, not the %s you were shown; look again", errRefused, rc.Rule, want)
	}
	applied, err := s.r.Apply(rc.plan)
	if err != nil {
		return rc, err
	}
	rc.plan = applied
	return rc, nil
}

// refused is true for the review loop's reasons not to write a rule.
func refused(err error) bool {
	var r *review.Refusal
	return errors.As(err, &r) || errors.Is(err, review.ErrAlready)
}

func (s *source) replay(policy []byte, project string, since time.Time) (replayResult, error) {
	return replayResult{}, errNoReview
}
