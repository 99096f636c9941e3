// Package review is the review loop over what agents did: one log across
// every project and agent, why a call was decided as it was, a decision
// turned into a rule, a candidate policy replayed over the recorded calls,
// and a policy file checked (lint) and tested against its own examples.
// The command line (perm-peer log, why, allow, deny, replay, policy) and the
// web view (perm-peer ui) are thin wrappers around it.
//
// # The log
//
// Every process that opens a project's DB records the project root beside
// it (store.ProjectDBs). A Reviewer reads every DB of a state directory:
//
//	r, _ := review.New(review.Config{})            // $XDG_STATE_HOME/perm-peer, the user policy
//	entries, _ := r.Log(review.Query{Since: t0})   // newest first, all projects
//	e, _ := r.Find("3fa9c1:42", "")                // an entry by its ID
//	x, _ := r.Why(e)                               // what decided it and how to change that
//
// # IDs
//
// An Entry's ID is "<project>:<seq>": the first six hex digits of the
// project's DB name (a hash of its root) and the record's sequence number
// in that DB, e.g. "3fa9c1:42". Find accepts any unique prefix of the DB
// name before the colon, and a bare "42" inside a project (the project
// argument).
//
// # Turning decisions into policy
//
//	c, err := r.PlanRule(e, "allow", review.ScopeProject) // the narrowest rule; *Refusal says why not
//	c, err = r.Apply(c)                                   // a project grant, or an in-place policy edit
//	rep, _ := r.Replay(review.ReplayOptions{UserPolicy: "cand.json"}) // what a candidate changes
//	fs, _ := r.Lint(p)                                    // problems in the user and project files
//	xs, _ := r.Examples(p)                                // the files' examples, checked
//
// # Words
//
// Entry.By and Explanation texts are for people: "a hard floor", "your
// policy rule", "known safe", "you", "the AI judge"; the protocol's values
// (decidedBy, source) stay in Entry.Record.
//
// # Stability
//
// The exported API of this package (Config, Reviewer and its methods,
// Query, Entry, Explanation, Decider, FactLine, Change, Project,
// RuleChange, Refusal, ErrAlready, ReplayOptions, ReplayReport,
// ReplayChange, Finding, ParseSince, Relative, Outcome, DecidedBy,
// ModeWords, OpenWords; gate.ExampleResult for Examples) is what the command line and the web view build on: add
// fields and methods, do not rename or remove them.
package review
