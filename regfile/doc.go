// Package regfile reads the small files perm-peer takes its configuration
// from (policies, the hosts' settings files): regular files only, bounded in
// size. A repository can ship such a file as a symlink to /dev/zero, a FIFO
// or /dev/stdin, which would grow without bound, block forever, or eat the
// caller's own protocol input; each is refused with one sentence naming the
// file.
package regfile
