package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/judge"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/redact"
	"github.com/perm-peer/perm-peer/store"
)

// withWorld decodes a method's params into a P (a -32602 changes nothing)
// and runs fn on the connection's world.
func withWorld[P any](s *Server, method string, raw *json.RawMessage, fn func(w *world, p P) result) result {
	var p P
	if err := decodeParams(method, raw, &p); err != nil {
		return result{err: err}
	}
	w, err := s.world()
	if err != nil {
		return internalError(err)
	}
	return fn(w, p)
}

// withSession is withWorld for methods that act in a session, which is
// loaded or created on first use.
func withSession[P any](s *Server, method string, raw *json.RawMessage, id func(P) string, fn func(w *world, sess *session, p P) result) result {
	return withWorld(s, method, raw, func(w *world, p P) result {
		if id(p) == "" {
			return result{err: missing("/sessionId")}
		}
		sess, err := s.session(id(p))
		if errors.Is(err, errTooManySessions) {
			return failure(protocol.CodeInvalidRequest, err.Error())
		}
		if err != nil {
			return internalError(err)
		}
		return fn(w, sess, p)
	})
}

func (s *Server) requestPermission(ctx context.Context, method string, raw *json.RawMessage, settledOnly bool) result {
	return withSession(s, method, raw, func(p protocol.RequestPermissionParams) string { return p.SessionID },
		func(w *world, sess *session, p protocol.RequestPermissionParams) result {
			reply, err := s.decide(ctx, w, sess, p.Turn, p.ToolCall, s.editorAsker(), settledOnly)
			if err != nil {
				return decideError(err)
			}
			return result{value: reply}
		})
}

// decideError is the result of a failed decide.
func decideError(err error) result {
	if errors.Is(err, errUnsettled) {
		return result{unsettled: true}
	}
	if errors.Is(err, errCancelled) {
		return failure(protocol.CodeCancelled, "request cancelled")
	}
	return internalError(err)
}

func (s *Server) check(method string, raw *json.RawMessage) result {
	return withWorld(s, method, raw, func(w *world, p protocol.CheckParams) result {
		// A dry run creates nothing: a live session lends its cache and
		// cwd, otherwise a throwaway one stands in.
		s.mu.Lock()
		sess := s.sessions[p.SessionID]
		s.mu.Unlock()
		if sess == nil {
			// a session stored by an earlier process keeps its cwd
			info := protocol.Session{ID: p.SessionID}
			if p.SessionID != "" {
				if stored, err := w.db.Session(p.SessionID); err == nil {
					info = stored
				}
			}
			sess = newSession(info)
		}
		v := s.analyze(w, sess, p.ToolCall)
		res := protocol.CheckResult{Decision: v.Decision, Risk: v.Risk, HumanOnly: v.HumanOnly,
			Reasons: v.Reasons, Facts: v.Facts}
		if res.Reasons == nil {
			res.Reasons = []protocol.Reason{}
		}
		if res.Facts == nil {
			res.Facts = []protocol.Fact{}
		}
		return result{value: res}
	})
}

func (s *Server) audit(method string, raw *json.RawMessage) result {
	return withWorld(s, method, raw, func(w *world, p protocol.AuditParams) result {
		recs, next, err := w.db.Audit(store.AuditQuery{SessionID: p.SessionID, After: p.After, Limit: p.Limit})
		if errors.Is(err, store.ErrBadQuery) {
			return failure(protocol.CodeInvalidParams, fmt.Sprintf("invalid params: /after: %q is not an audit id (a decimal record id)", p.After))
		}
		if err != nil {
			return internalError(err)
		}
		if recs == nil {
			recs = []protocol.AuditRecord{}
		}
		return result{value: protocol.AuditResult{Records: recs, Next: next}}
	})
}

func (s *Server) rules(method string, raw *json.RawMessage) result {
	return withWorld(s, method, raw, func(w *world, p protocol.RulesParams) result {
		if p.SessionID == "" {
			return result{err: missing("/sessionId")}
		}
		rules := s.userRules(w, p.SessionID, readGrants(w))
		if rules == nil {
			rules = []protocol.UserRule{}
		}
		return result{value: protocol.RulesResult{Rules: rules, Rendered: judge.RenderRules(rules)}}
	})
}

func (s *Server) grantsList(method string, raw *json.RawMessage) result {
	return withWorld(s, method, raw, func(w *world, _ protocol.GrantsListParams) result {
		grants, err := w.db.AllGrants()
		if err != nil {
			return internalError(err)
		}
		if grants == nil {
			grants = []protocol.Grant{}
		}
		return result{value: protocol.GrantsListResult{Grants: grants}}
	})
}

func (s *Server) grantsRevoke(method string, raw *json.RawMessage) result {
	return withWorld(s, method, raw, func(w *world, p protocol.GrantsRevokeParams) result {
		if p.ID == "" {
			return result{err: missing("/id")}
		}
		if err := w.db.RevokeGrant(p.ID); errors.Is(err, store.ErrNotFound) {
			return failure(protocol.CodeInvalidParams, "invalid params: /id: no grant "+p.ID)
		} else if err != nil {
			return internalError(err)
		}
		// Live session caches confirm against the grants on every hit
		// (Server.analyze), so the revocation takes effect at once, here
		// and in every other peer process.
		return result{value: protocol.Empty{}}
	})
}

// asArrived returns the reasons to audit for a call whose rawInput is raw.
// When the gate found a repeated key in it, the record's rawInput (a
// canonical object, which holds one copy of each key) cannot show both
// copies: that reason then carries the input as it arrived, redacted, so
// the audit keeps the copy the host may have run.
func asArrived(reasons []protocol.Reason, raw json.RawMessage) []protocol.Reason {
	for i, r := range reasons {
		if r.Code != gate.ReasonDuplicateKey {
			continue
		}
		out := append([]protocol.Reason(nil), reasons...)
		out[i].Detail += "; as it arrived: " + redact.String(string(raw))
		return out
	}
	return reasons
}
