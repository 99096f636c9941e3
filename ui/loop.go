package ui

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/perm-peer/perm-peer/review"
)

// The review loop's rule and replay operations, as the pages show them.

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

// replay re-decides the recorded calls of the project with DB hash
// project ("" for all) since since under a candidate policy, as
// `perm-peer replay --policy FILE` does (asProject: --project-policy). It
// reads only: the candidate goes to a private temporary file for the
// policy loader and is removed after.
func (s *source) replay(policy []byte, project string, asProject bool, since time.Time) (replayResult, error) {
	if len(bytes.TrimSpace(policy)) == 0 {
		return replayResult{}, errors.New("paste or upload a candidate policy first")
	}
	q := review.Query{Since: since}
	if project != "" {
		p, err := s.project(project)
		if err != nil {
			return replayResult{}, err
		}
		q.Projects = []string{p.Root}
	}
	f, err := os.CreateTemp("", "perm-peer-ui-candidate-*.json")
	if err != nil {
		return replayResult{}, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(policy)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return replayResult{}, err
	}
	o := review.ReplayOptions{Query: q, UserPolicy: f.Name()}
	if asProject {
		o = review.ReplayOptions{Query: q, ProjectPolicy: f.Name()}
	}
	rep, err := s.r.Replay(o)
	if err != nil {
		// the loader names the temporary file: the user knows it as "the candidate"
		return replayResult{}, errors.New(strings.ReplaceAll(err.Error(), f.Name(), "the candidate policy"))
	}
	res := replayResult{Summary: fmt.Sprintf("%d recorded calls decided again: %d more allowed, %d more asked, %d newly denied, %d no longer denied.",
		rep.Calls, rep.MoreAllowed, rep.MoreAsked, rep.NewlyDenied, rep.NoLongerDenied)}
	for _, c := range rep.Changes {
		res.Changes = append(res.Changes, replayChange{ID: c.Entry.ID, Root: c.Entry.Project, ProjectName: projectName(c.Entry.Project),
			WhyHref: whyHref(c.Entry.ID), Action: c.Entry.Action, Was: c.Before, WasClass: outcomeClass(c.Before), Now: c.After,
			NowClass: outcomeClass(c.After), Why: c.BeforeBy + " → " + c.AfterBy})
	}
	return res, nil
}

// outcomeClass colours a replay outcome.
func outcomeClass(o string) string {
	switch o {
	case review.Allow:
		return "allow"
	case review.Deny:
		return "deny"
	}
	return "ask"
}
