package judge

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
)

// User rule kinds (protocol.UserRule.Kind).
const (
	KindAlways   = "always"
	KindApproved = "approved_with_note"
	KindRejected = "rejected_with_note"
	KindGrant    = "grant"
)

// ExtractRules derives the session-scoped user rules from audit records and
// the project's grants.
//
// Only records with Source "user" count: an "always" reply, an approval with
// a note and a rejection with a note each make a rule; a record without an
// Action makes none (a rule on an unnamed action would read as a blank
// check). Each grant makes a "Persistent grant" rule. Records of the session
// and of its parent may be passed together: rules are ordered newest first
// by timestamp (input order breaks ties and places unparsable timestamps
// last), deduplicated on ID = kind|action|resources keeping the newest, and
// capped at MaxRules.
func ExtractRules(records []protocol.AuditRecord, grants []protocol.Grant) []protocol.UserRule {
	type cand struct {
		rule protocol.UserRule
		at   time.Time
	}
	var cands []cand
	for _, rec := range records {
		if rec.Source != protocol.SourceUser || strings.TrimSpace(rec.Action) == "" {
			continue
		}
		note := strings.TrimSpace(rec.Reply.Feedback)
		var kind string
		switch {
		case rec.Decision == protocol.ReplyAlways:
			kind = KindAlways
		case rec.Decision == protocol.ReplyOnce && note != "":
			kind = KindApproved
		case rec.Decision == protocol.ReplyReject && note != "":
			kind = KindRejected
		default:
			continue
		}
		cands = append(cands, cand{newRule(kind, rec.Action, rec.Resources, note, rec.ID, rec.TS), parseTS(rec.TS)})
	}
	for _, g := range grants {
		if strings.TrimSpace(g.Pattern) == "" {
			continue
		}
		cands = append(cands, cand{newRule(KindGrant, g.Pattern, nil, "", g.AuditID, g.Created), parseTS(g.Created)})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].at.After(cands[j].at) })

	seen := make(map[string]bool, len(cands))
	var out []protocol.UserRule
	for _, c := range cands {
		if seen[c.rule.ID] {
			continue
		}
		seen[c.rule.ID] = true
		out = append(out, c.rule)
		if len(out) == MaxRules {
			break
		}
	}
	return out
}

// newRule builds a rule with its stable ID and its rendered Text.
func newRule(kind, action string, resources []string, note, auditID, ts string) protocol.UserRule {
	res := normResources(resources)
	text, _ := ruleText(kind, action, res, note)
	return protocol.UserRule{
		ID:        kind + "|" + action + "|" + strings.Join(res, ","),
		Kind:      kind,
		Action:    action,
		Resources: res,
		Note:      note,
		Text:      text,
		AuditID:   auditID,
		TS:        ts,
	}
}

// normResources sorts and deduplicates resources so the ID does not depend
// on the order the gate listed them in.
func normResources(resources []string) []string {
	if len(resources) == 0 {
		return nil
	}
	res := slices.Clone(resources)
	slices.Sort(res)
	return slices.Compact(res)
}

// parseTS reads an RFC 3339 timestamp; an unparsable one sorts last.
func parseTS(ts string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Relativize rewrites the rules' resources that lie inside project (an
// absolute root) relative to it ("." for the root itself), as the judge sees
// paths, and recomputes ID and Text. Other resources (hosts, paths outside
// the project) are kept as they are. Use the same call for the prompt and for
// permission/rules so both show the same bytes.
func Relativize(project string, rules []protocol.UserRule) []protocol.UserRule {
	if project == "" || !filepath.IsAbs(project) {
		return rules
	}
	out := make([]protocol.UserRule, 0, len(rules))
	for _, r := range rules {
		out = append(out, newRule(r.Kind, r.Action, RelPaths(project, r.Resources), r.Note, r.AuditID, r.TS))
	}
	return out
}

// RelPaths shows absolute paths inside project (an absolute root) relative
// to it, "." for the root itself; other paths are kept. Use it for
// Call.Paths and SessionContext.Cwd.
func RelPaths(project string, paths []string) []string {
	if project == "" || !filepath.IsAbs(project) || paths == nil {
		return paths
	}
	root := filepath.Clean(project)
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = relPath(root, p)
	}
	return out
}

func relPath(root, p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return rel
}

// standingWords are the words with which a note widens an approval from
// the one call to a class of calls ("approve all lint runs in this repo",
// "tests are always fine"). Without one, an approval covers its call only.
var standingWords = []string{"all", "always", "any", "every", "everything", "whenever", "anytime", "each", "forever", "from now on", "going forward", "in future", "in the future", "in this repo", "in this project"}

// StandingNote reports whether an approval note states a standing class of
// calls rather than approving the one call. Words are matched whole and
// case-insensitively; a negated note ("not always") is not standing.
func StandingNote(note string) bool {
	// Words are split on spaces and stripped of sentence punctuation only,
	// so "install-all.sh" stays one word, not "all".
	words := strings.Fields(strings.ToLower(note))
	for i, w := range words {
		words[i] = strings.Trim(w, ",.;:!?\"'()[]")
	}
	text := " " + strings.Join(words, " ") + " "
	for _, neg := range []string{" not ", " never ", " don't ", " dont ", " only this ", " just this ", " only once ", " this once "} {
		if strings.Contains(text, neg) {
			return false
		}
	}
	for _, w := range standingWords {
		if strings.Contains(text, " "+w+" ") {
			return true
		}
	}
	return false
}
