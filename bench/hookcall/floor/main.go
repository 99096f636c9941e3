// Command floor is what one hook call costs without perm-peer's work: a Go
// process that reads the hook's JSON from stdin, decodes it and prints a
// fixed allow. With -commit-db it also commits one record durably to a
// bbolt file (fsync) before answering: the floor a hook that audits
// before it answers cannot go below. Built with -tags validate it links
// perm-peer's schemas package and its validator, as every perm-peer process
// does (whose package inits once compiled the validator's meta-schemas).
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

const answer = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"floor"}}` + "\n"

func main() {
	commitDB := ""
	if len(os.Args) == 3 && os.Args[1] == "-commit-db" {
		commitDB = os.Args[2]
	}
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	var in map[string]any
	if err := json.Unmarshal(raw, &in); err != nil {
		fail(err)
	}
	if commitDB != "" {
		if err := commit(commitDB, raw); err != nil {
			fail(err)
		}
	}
	_, _ = os.Stdout.WriteString(answer)
}

// commit puts one record under a fresh sequence key, synced before
// Update returns (bbolt's default).
func commit(path string, rec []byte) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 3 * time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("audit"))
		if err != nil {
			return err
		}
		seq, _ := b.NextSequence()
		return b.Put([]byte(fmt.Sprintf("%016x", seq)), rec)
	})
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "floor:", err)
	os.Exit(2)
}
