package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// bucketSessionGrants holds the grants that cover calls of one session only
// (perm-peer allow --session), apart from the project's grants, so that no
// reader of Grants can take one for a grant of the whole project. The bucket
// is created by the first write; a file without it has none.
var bucketSessionGrants = []byte("session_grants")

// AddSessionGrant persists g for the calls of session g.SessionID only,
// setting its ID and Created. Adding a pattern the session already has
// returns the existing grant unchanged.
func (db *DB) AddSessionGrant(g protocol.Grant) (protocol.Grant, error) {
	if db.isClosed() {
		return g, fmt.Errorf("add session grant to %s: %w", db.path, ErrClosed)
	}
	if g.Pattern == "" || g.SessionID == "" {
		return g, fmt.Errorf("add session grant: empty pattern or session id")
	}
	err := db.update(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(bucketSessionGrants)
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", bucketSessionGrants, err)
		}
		k := sessionGrantKey(g.SessionID, g.Pattern)
		if v := b.Get(k); v != nil {
			return json.Unmarshal(v, &g)
		}
		seq, err := b.NextSequence()
		if err != nil {
			return fmt.Errorf("next session grant sequence: %w", err)
		}
		g.ID = sessionGrantIDPrefix + strconv.FormatUint(seq, 10)
		g.Created = time.Now().UTC().Format(time.RFC3339Nano)
		return putJSON(b, k, g)
	})
	if err != nil {
		return g, fmt.Errorf("add session grant %q: %w", g.Pattern, err)
	}
	return g, nil
}

// SessionGrants lists the grants of session, in pattern order.
func (db *DB) SessionGrants(session string) ([]protocol.Grant, error) {
	all, err := db.sessionGrants(sessionGrantKey(session, ""))
	if err != nil {
		return nil, fmt.Errorf("list session grants of %q: %w", session, err)
	}
	var out []protocol.Grant
	for _, g := range all {
		// a session id may hold a NUL: the prefix alone does not tell
		// this session's keys from a longer id's
		if g.SessionID == session {
			out = append(out, g)
		}
	}
	return out, nil
}

// AllSessionGrants lists the grants of every session of the project, by
// session then pattern.
func (db *DB) AllSessionGrants() ([]protocol.Grant, error) {
	out, err := db.sessionGrants(nil)
	if err != nil {
		return nil, fmt.Errorf("list session grants: %w", err)
	}
	return out, nil
}

// sessionGrants lists the session grants whose keys start with prefix.
func (db *DB) sessionGrants(prefix []byte) ([]protocol.Grant, error) {
	if db.isClosed() {
		return nil, fmt.Errorf("%s: %w", db.path, ErrClosed)
	}
	var out []protocol.Grant
	err := db.view(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		var err error
		out, err = listSessionGrants(tx.Bucket(bucketSessionGrants), prefix)
		return err
	})
	return out, err
}

// IsSessionGrantID reports whether id names a session's grant (AddSessionGrant).
func IsSessionGrantID(id string) bool { return strings.HasPrefix(id, sessionGrantIDPrefix) }

const sessionGrantIDPrefix = "s"

// revokeSessionGrant deletes the session grant id in tx; ErrNotFound if
// there is none.
func revokeSessionGrant(tx *bolt.Tx, id string) error {
	b := tx.Bucket(bucketSessionGrants)
	if b == nil {
		return ErrNotFound
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var g protocol.Grant
		if err := json.Unmarshal(v, &g); err != nil {
			return fmt.Errorf("%w: session grant %q: %v", ErrCorrupt, k, err)
		}
		if g.ID == id {
			return c.Delete()
		}
	}
	return ErrNotFound
}

// listSessionGrants decodes the grants whose keys start with prefix (all
// of them for an empty prefix); a missing bucket lists none.
func listSessionGrants(b *bolt.Bucket, prefix []byte) ([]protocol.Grant, error) {
	if b == nil {
		return nil, nil
	}
	var out []protocol.Grant
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var g protocol.Grant
		if err := json.Unmarshal(v, &g); err != nil {
			return nil, fmt.Errorf("%w: session grant %q: %v", ErrCorrupt, k, err)
		}
		out = append(out, g)
	}
	return out, nil
}

func sessionGrantKey(session, pattern string) []byte {
	return append(append(sessionKey(session), 0), pattern...)
}
