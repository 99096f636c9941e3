package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// Host hooks (peer/hook) run one process per hook call, so what a hook
// must remember between calls of one agent session lives here, in the
// bucket "hooks": the session's turn (number, prompt, cwd) and the calls a
// hook left to the host's own prompt. The bucket is created by the first
// write; a file without it reads as empty.
var bucketHooks = []byte("hooks")

// Key prefixes in bucketHooks; the session id follows, then (asks) a NUL
// and the host's tool-use id.
const (
	hookTurnPrefix = "turn\x00"
	hookAskPrefix  = "ask\x00"
)

// HookTurn is a hooked session's current turn.
type HookTurn struct {
	Turn   int    `json:"turn"`
	Prompt string `json:"prompt,omitempty"`
	Cwd    string `json:"cwd,omitempty"`
	// At is when the turn or cwd was last written (RFC 3339; "" from an
	// older perm-peer, which StaleHookSessions never counts as stale).
	At string `json:"at,omitempty"`
}

// PendingAsk is a call a hook left to the host's own prompt: when the host
// later reports that it ran (or that the user rejected it), the user's
// answer is audited from it.
type PendingAsk struct {
	ID    string            `json:"id"` // the host's tool-use id
	Turn  int               `json:"turn"`
	Call  protocol.ToolCall `json:"call"`
	Asked string            `json:"asked"` // RFC 3339, when it was left
	// Prompted: the host showed its user the call (so, if it ran, the
	// user approved it). Else the host's own rules or mode decide it,
	// asking no one.
	Prompted bool `json:"prompted,omitempty"`
	// HumanOnly: the call must reach a person; the host was told to ask.
	HumanOnly bool `json:"humanOnly,omitempty"`
	// Offset is the size of the host's transcript when the call was left
	// to it: its outcome is written after that, so a scan starts there.
	Offset int64 `json:"offset,omitempty"`
}

// HookTurn reads session's turn; the zero HookTurn when none was recorded.
func (db *DB) HookTurn(session string) (HookTurn, error) {
	var t HookTurn
	err := db.hookView(func(b *bolt.Bucket) error { return getHookTurn(b, session, &t) })
	if err != nil {
		return HookTurn{}, fmt.Errorf("read hook turn of %q: %w", session, err)
	}
	return t, nil
}

// HookState reads session's turn and pending asks in one transaction (a
// hook process pays for each one it opens).
func (db *DB) HookState(session string) (HookTurn, []PendingAsk, error) {
	var t HookTurn
	var asks []PendingAsk
	err := db.hookView(func(b *bolt.Bucket) error {
		if err := getHookTurn(b, session, &t); err != nil {
			return err
		}
		var err error
		asks, err = listPendingAsks(b, session)
		return err
	})
	if err != nil {
		return HookTurn{}, nil, fmt.Errorf("read hook state of %q: %w", session, err)
	}
	return t, asks, nil
}

func getHookTurn(b *bolt.Bucket, session string, t *HookTurn) error {
	v := b.Get(hookTurnKey(session))
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(v, t); err != nil {
		return fmt.Errorf("%w: hook turn of %q: %v", ErrCorrupt, session, err)
	}
	return nil
}

// NextHookTurn starts session's next turn with the user's prompt, in one
// transaction (two hook processes never get the same number).
func (db *DB) NextHookTurn(session, prompt, cwd string) (HookTurn, error) {
	var t HookTurn
	err := db.hookUpdate(func(b *bolt.Bucket) error {
		k := hookTurnKey(session)
		if v := b.Get(k); v != nil {
			if err := json.Unmarshal(v, &t); err != nil {
				return fmt.Errorf("%w: hook turn of %q: %v", ErrCorrupt, session, err)
			}
		}
		t = HookTurn{Turn: t.Turn + 1, Prompt: prompt, Cwd: cwd, At: now()}
		return putJSON(b, k, t)
	})
	if err != nil {
		return HookTurn{}, fmt.Errorf("start hook turn of %q: %w", session, err)
	}
	return t, nil
}

// SetHookCwd records session's working directory, keeping its turn.
func (db *DB) SetHookCwd(session, cwd string) error {
	err := db.hookUpdate(func(b *bolt.Bucket) error {
		k := hookTurnKey(session)
		var t HookTurn
		if v := b.Get(k); v != nil {
			if err := json.Unmarshal(v, &t); err != nil {
				return fmt.Errorf("%w: hook turn of %q: %v", ErrCorrupt, session, err)
			}
		}
		t.Cwd, t.At = cwd, now()
		return putJSON(b, k, t)
	})
	if err != nil {
		return fmt.Errorf("record hook cwd of %q: %w", session, err)
	}
	return nil
}

// PutPendingAsk remembers a call of session left to the host's prompt.
func (db *DB) PutPendingAsk(session string, a PendingAsk) error {
	if a.ID == "" {
		return fmt.Errorf("put pending ask of %q: empty tool-use id", session)
	}
	if a.Asked == "" {
		a.Asked = now()
	}
	err := db.hookUpdate(func(b *bolt.Bucket) error { return putJSON(b, hookAskKey(session, a.ID), a) })
	if err != nil {
		return fmt.Errorf("put pending ask %q of %q: %w", a.ID, session, err)
	}
	return nil
}

// PendingAsks lists session's pending asks in key order.
func (db *DB) PendingAsks(session string) ([]PendingAsk, error) {
	var out []PendingAsk
	err := db.hookView(func(b *bolt.Bucket) error {
		var err error
		out, err = listPendingAsks(b, session)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list pending asks of %q: %w", session, err)
	}
	return out, nil
}

func listPendingAsks(b *bolt.Bucket, session string) ([]PendingAsk, error) {
	var out []PendingAsk
	prefix := hookAskKey(session, "")
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var a PendingAsk
		if err := json.Unmarshal(v, &a); err != nil {
			return nil, fmt.Errorf("%w: pending ask %q: %v", ErrCorrupt, k, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// TakePendingAsk removes and returns session's pending ask id; ok is false
// when there is none. Two processes never both take one ask, so the user's
// answer to it is audited once.
func (db *DB) TakePendingAsk(session, id string) (a PendingAsk, ok bool, err error) {
	err = db.hookUpdate(func(b *bolt.Bucket) error {
		k := hookAskKey(session, id)
		v := b.Get(k)
		if v == nil {
			return nil
		}
		if err := json.Unmarshal(v, &a); err != nil {
			return fmt.Errorf("%w: pending ask %q: %v", ErrCorrupt, id, err)
		}
		ok = true
		return b.Delete(k)
	})
	if err != nil {
		return PendingAsk{}, false, fmt.Errorf("take pending ask %q of %q: %w", id, session, err)
	}
	return a, ok, nil
}

// hookView runs fn on the hooks bucket; a file without it reads as empty.
func (db *DB) hookView(fn func(*bolt.Bucket) error) error {
	if db.isClosed() {
		return fmt.Errorf("%s: %w", db.path, ErrClosed)
	}
	return db.view(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		b := tx.Bucket(bucketHooks)
		if b == nil {
			return nil
		}
		return fn(b)
	})
}

// hookUpdate runs fn on the hooks bucket in a write transaction.
func (db *DB) hookUpdate(fn func(*bolt.Bucket) error) error {
	if db.isClosed() {
		return fmt.Errorf("%s: %w", db.path, ErrClosed)
	}
	return db.update(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(bucketHooks)
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", bucketHooks, err)
		}
		return fn(b)
	})
}

// StaleHookSession is the hook state of a session no hook wrote since a
// cutoff: its turn and the calls still left to the host.
type StaleHookSession struct {
	ID   string
	Turn HookTurn
	Asks []PendingAsk
}

// StaleHookSessions lists up to limit sessions whose turn was last
// written before cutoff and that have no pending ask left after it.
func (db *DB) StaleHookSessions(cutoff time.Time, limit int) ([]StaleHookSession, error) {
	var out []StaleHookSession
	err := db.hookView(func(b *bolt.Bucket) error {
		c := b.Cursor()
		prefix := []byte(hookTurnPrefix)
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, v = c.Next() {
			s := StaleHookSession{ID: string(k[len(prefix):])}
			if err := json.Unmarshal(v, &s.Turn); err != nil {
				return fmt.Errorf("%w: hook turn %q: %v", ErrCorrupt, k, err)
			}
			if !before(s.Turn.At, cutoff) {
				continue
			}
			var err error
			if s.Asks, err = listPendingAsks(b, s.ID); err != nil {
				return err
			}
			if !slices.ContainsFunc(s.Asks, func(a PendingAsk) bool { return !before(a.Asked, cutoff) }) {
				out = append(out, s)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list stale hook sessions: %w", err)
	}
	return out, nil
}

// DropHookSession deletes session's turn and pending asks.
func (db *DB) DropHookSession(session string) error {
	err := db.hookUpdate(func(b *bolt.Bucket) error {
		asks, err := listPendingAsks(b, session)
		if err != nil {
			return err
		}
		for _, a := range asks {
			if err := b.Delete(hookAskKey(session, a.ID)); err != nil {
				return err
			}
		}
		return b.Delete(hookTurnKey(session))
	})
	if err != nil {
		return fmt.Errorf("drop hook state of %q: %w", session, err)
	}
	return nil
}

// before reports whether the RFC 3339 time at is before cutoff; an
// unreadable or missing time never is.
func before(at string, cutoff time.Time) bool {
	t, err := time.Parse(time.RFC3339Nano, at)
	return err == nil && t.Before(cutoff)
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func putJSON(b *bolt.Bucket, k []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", k, err)
	}
	return b.Put(k, raw)
}

func hookTurnKey(session string) []byte { return []byte(hookTurnPrefix + session) }

func hookAskKey(session, id string) []byte { return []byte(hookAskPrefix + session + "\x00" + id) }
