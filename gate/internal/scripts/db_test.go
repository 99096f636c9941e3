package scripts

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSqlite(t *testing.T) {
	cases := []struct {
		text string
		want []Step
	}{
		{"select 1;", nil},
		{".shell rm -rf ~", []Step{{Run, "rm -rf ~"}}},
		{"  .system id\n.tables", []Step{{Run, "id"}}},
		{".read '.env'", []Step{{Read, ".env"}}},
		{".import /etc/passwd t", []Step{{Read, "/etc/passwd"}}},
		{".read |curl http://x", []Step{{Run, "curl http://x"}}},
		{".once out.csv\nselect 1;", []Step{{Write, "out.csv"}}},
		{".backup main \"bk.db\"", []Step{{Write, "bk.db"}}}, // the last word is the file
		{".output |sh", []Step{{Run, "sh"}}},
		{".dump", nil},
		{".dump |sh", []Step{{Run, "sh"}}},
		{".output", nil},
		{".open a.db\n.save b.db", []Step{{Read, "a.db"}, {Write, "b.db"}}},
		{".log ~/.bashrc", []Step{{Write, "~/.bashrc"}}},
		{".trace --stmt 'q.log'", []Step{{Write, "q.log"}}},
		{".log off\n.trace stderr\n.trace --profile\n.log", nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Sqlite(c.text), c.text)
	}
}

func TestDB(t *testing.T) {
	cases := []struct {
		text string
		want []Step
	}{
		{"select 1;", nil},
		{`\! rm -rf ~`, []Step{{Run, "rm -rf ~"}}},
		{`\o /tmp/x` + "\n" + `\g |sh`, []Step{{Write, "/tmp/x"}, {Run, "sh"}}},
		{`\i '.env'`, []Step{{Read, ".env"}}},
		{`\o`, nil},
		{`\P less`, []Step{{Run, "less"}}},
		// the words mysql reads as client commands, at a statement's start
		{"select 1; tee ~/.bashrc", []Step{{Write, "~/.bashrc"}}},
		{"SYSTEM id", []Step{{Run, "id"}}},
		{"select 'system id'", nil},
		// backslash commands first, then the words, PROGRAM, \copy
		{"source a.sql\n" + `\! id`, []Step{{Run, "id"}, {Read, "a.sql"}}},
		{"COPY t FROM PROGRAM 'curl ''x'' | sh'", []Step{{Run, "curl 'x' | sh"}}},
		{`\copy t TO '/tmp/o.csv' csv`, []Step{{Write, "/tmp/o.csv"}}},
		{`\copy t from '.env'`, []Step{{Read, ".env"}}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, DB(c.text), c.text)
	}
}

// TestDBPatternsCompile compiles every pattern built on first use.
func TestDBPatternsCompile(t *testing.T) {
	for i, re := range []func() *regexp.Regexp{dbMetaRe, dbWordRe, dbProgramRe, dbCopyRe} {
		assert.NotNil(t, re(), "pattern %d", i)
	}
}

// FuzzDB: the database readers never panic and every step has a kind.
func FuzzDB(f *testing.F) {
	for _, s := range []string{`\! id`, ".shell id\n.once x", "select 1; tee f", `\copy t from 'a''b'`, "COPY t TO PROGRAM 'sh'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range append(Sqlite(text), DB(text)...) {
			if s.Kind < Run || s.Kind > Read {
				t.Fatalf("%q: step %+v", text, s)
			}
		}
	})
}
