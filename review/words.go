package review

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/peer/hook"
	"github.com/perm-peer/perm-peer/protocol"
)

// Outcome is what happened to a call, in plain words: "allowed",
// "allowed always" (and saved as a grant) or "denied".
func Outcome(r protocol.AuditRecord) string {
	if r.Source == protocol.SourceHost && slices.Contains(r.Reasons, protocol.Reason{Code: peer.ReasonHostOutcome, Detail: hook.UnknownOutcome}) {
		return "outcome unknown"
	}
	switch r.Decision {
	case protocol.ReplyOnce:
		return "allowed"
	case protocol.ReplyAlways:
		return "allowed always"
	case protocol.ReplyReject:
		return "denied"
	}
	return string(r.Decision)
}

// DecidedBy says who decided a recorded call, in plain words.
func DecidedBy(r protocol.AuditRecord) string {
	switch r.DecidedBy {
	case protocol.ByFloor:
		return "hard floor"
	case protocol.ByRule:
		return "your policy rule"
	case protocol.ByGate:
		return "known safe"
	case protocol.ByGrant:
		return "saved \"always\""
	case protocol.BySession:
		return "\"always\" this session"
	case protocol.ByMode:
		if m := modeOfReason(r); m != "" {
			return m + " mode"
		}
		return "the mode"
	case protocol.ByJudge:
		return "AI judge"
	case protocol.ByUser:
		if madeByAllow(r) {
			return "you, with perm-peer allow"
		}
		return "you, when asked"
	case protocol.ByHeadless:
		return "no one could be asked"
	case protocol.ByHost:
		return "the host's own rules"
	}
	switch r.Source {
	case protocol.SourceUser:
		return "you, when asked"
	case protocol.SourceJudge:
		return "AI judge"
	case protocol.SourceSystem:
		return "perm-peer (cancelled or failed)"
	case protocol.SourceHost:
		return "the host's own rules"
	}
	return string(r.DecidedBy)
}

// modeOfReason reads "full mode: …" / "auto mode: …" off the recorded reason.
func modeOfReason(r protocol.AuditRecord) string {
	reason := ""
	if r.Reply.Meta != nil {
		reason = r.Reply.Meta.Reason
	}
	for _, m := range []string{"full", "auto"} {
		if strings.HasPrefix(reason, m+" mode") {
			return m
		}
	}
	return ""
}

// ModeWords explains a mode in one sentence.
func ModeWords(m protocol.Mode) string {
	switch m {
	case protocol.ModeAsk, "":
		return "ask: whatever the rules and the known-safe set leave open is asked of you"
	case protocol.ModeAuto:
		return "auto: whatever the rules leave open runs, except what only a person may approve"
	case protocol.ModeFull:
		return "full: everything runs except the hard floors and your deny rules (you chose full access)"
	case protocol.ModeAI:
		return "ai: the AI judge decides what the rules leave open, and asks you when unsure"
	}
	return string(m)
}

// OpenWords says why the gate left a call open, in plain words (what the
// `check` output called "open (the mode decides)").
func OpenWords(humanOnly bool, m protocol.Mode) string {
	if humanOnly {
		return "only a person may approve this (full mode also runs it); nothing else clears it"
	}
	switch m {
	case protocol.ModeAuto, protocol.ModeFull:
		return "no rule decides it: " + string(m) + " mode runs it"
	case protocol.ModeAI:
		return "no rule decides it: the AI judge decides, and asks you when unsure"
	}
	return "no rule decides it: you are asked (ask mode)"
}

// madeByAllow reports a record `perm-peer allow` wrote for its grant.
func madeByAllow(r protocol.AuditRecord) bool {
	return r.Source == protocol.SourceUser && r.Reply.Meta != nil && strings.HasPrefix(r.Reply.Meta.Reason, allowReasonPrefix)
}

const allowReasonPrefix = "perm-peer allow "
