package store

import (
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// Bucket and meta key names (docs/STORE.md describes the layout).
var (
	bucketAudit     = []byte("audit")
	bucketBySession = []byte("audit_by_session")
	bucketGrants    = []byte("grants")
	bucketSessions  = []byte("sessions")
	bucketMeta      = []byte("meta")

	keySchema    = []byte("schema")     // decimal schema version
	keyAuditHead = []byte("audit_head") // "<id> <hash>" of the newest audit record
)

// SchemaVersion is the layout this build reads and writes.
const SchemaVersion = 2

// migrations[v] upgrades a version-v file to v+1 inside one transaction.
// Version 0 is a file without a meta bucket: new, or written before
// versioning; the step creates the missing buckets and indexes any audit
// records it finds.
var migrations = []func(*bolt.Tx) error{
	0: migrate0to1,
	1: migrate1to2,
}

func init() {
	if len(migrations) != SchemaVersion {
		panic("store: migrations must lead to SchemaVersion")
	}
}

// schemaVersion reads the version; 0 when the meta bucket or key is absent.
func schemaVersion(tx *bolt.Tx) (int, error) {
	m := tx.Bucket(bucketMeta)
	if m == nil {
		return 0, nil
	}
	v := m.Get(keySchema)
	if v == nil {
		return 0, nil
	}
	n, err := strconv.Atoi(string(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: schema version %q is not a number", ErrCorrupt, v)
	}
	return n, nil
}

// migrate brings the file to SchemaVersion, refusing a newer one without
// writing anything (the transaction is rolled back on error).
func migrate(tx *bolt.Tx) error {
	v, err := schemaVersion(tx)
	if err != nil {
		return err
	}
	if v > SchemaVersion {
		return newerSchema(v)
	}
	for ; v < SchemaVersion; v++ {
		if err := migrations[v](tx); err != nil {
			return fmt.Errorf("migrate audit db from schema %d to %d: %w", v, v+1, err)
		}
		m, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return fmt.Errorf("create meta bucket: %w", err)
		}
		if err := m.Put(keySchema, []byte(strconv.Itoa(v+1))); err != nil {
			return fmt.Errorf("write schema version: %w", err)
		}
	}
	return nil
}

// checkSchema guards every transaction after Open: another process may have
// upgraded the file since.
func checkSchema(tx *bolt.Tx) error {
	v, err := schemaVersion(tx)
	if err != nil {
		return err
	}
	if v != SchemaVersion {
		if v > SchemaVersion {
			return newerSchema(v)
		}
		return fmt.Errorf("%w: schema version %d, expected %d", ErrCorrupt, v, SchemaVersion)
	}
	return nil
}

func newerSchema(v int) error {
	return fmt.Errorf("%w version %d (this perm-peer supports up to %d): upgrade perm-peer", ErrNewerSchema, v, SchemaVersion)
}

func migrate0to1(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketAudit, bucketBySession, bucketGrants, bucketSessions, bucketMeta} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	// Index records written before versioning so per-session queries see
	// them, and make the newest one the head new records chain onto.
	var head []byte
	err := tx.Bucket(bucketAudit).ForEach(func(k, v []byte) error {
		r, err := decodeRecord(k, v)
		if err != nil {
			return err
		}
		head = []byte(strconv.FormatUint(keySeq(k), 10) + " " + r.Hash)
		return indexRecord(tx, k, indexFields{SessionID: r.SessionID, Source: r.Source})
	})
	if err != nil || head == nil {
		return err
	}
	return tx.Bucket(bucketMeta).Put(keyAuditHead, head)
}

// migrate1to2 adds the index watermark (index.go). Schema 1 indexed every
// record as it was appended, so everything up to the head is indexed. The
// version changes because a schema-1 peer would not read the unindexed
// tail and would miss records in per-session queries.
func migrate1to2(tx *bolt.Tx) error {
	head, _, err := parseHead(tx.Bucket(bucketMeta).Get(keyAuditHead))
	if err != nil {
		return err
	}
	return putIndexedUpTo(tx, head)
}
