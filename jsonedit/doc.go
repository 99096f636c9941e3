// Package jsonedit edits a JSON text in place: it parses the text keeping
// every value's byte range, and applies a few edits (append a member or an
// element, replace a value, remove members or elements) as splices of the
// original bytes. What the edits do not touch stays byte for byte as the
// user wrote it: indentation, key order, escapes, comments. Inserted values
// follow the file's own indentation and key-colon spacing.
//
// perm-peer setup uses it to add and remove its hook entries in the hosts'
// settings files, which people write by hand.
package jsonedit
