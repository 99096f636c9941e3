package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/perm-peer/perm-peer/jsonedit"
)

// Gemini CLI applies a project's .gemini/settings.json only in a trusted
// folder (google-gemini/gemini-cli packages/cli/src/config/
// trustedFolders.ts): ~/.gemini/trustedFolders.json (or
// $GEMINI_CLI_TRUSTED_FOLDERS_PATH), a JSON-with-comments object of
// path → TRUST_FOLDER | TRUST_PARENT | DO_NOT_TRUST, the longest matching
// path deciding. Headless runs (gemini -p) count as trusted.

const geminiHeadless = "gemini -p (headless) shows no dialog: a call perm-peer leaves to a person cannot be approved there; run gemini interactively for such calls"

func geminiTrustedFoldersFile() (string, error) {
	if p := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p, nil
	}
	return homeFile(".gemini", "trustedFolders.json")()
}

// geminiTrustOf is Gemini's verdict on dir: "trusted", "untrusted" or ""
// (no rule: Gemini asks).
func geminiTrustOf(doc *jsonedit.Doc, dir string) string {
	best, verdict := -1, ""
	for _, m := range doc.Root().Members {
		if m.Val.Kind != jsonedit.String {
			continue
		}
		rule := m.Key
		if m.Val.Str == "TRUST_PARENT" {
			rule = filepath.Dir(rule)
		}
		if real, err := filepath.EvalSymlinks(rule); err == nil {
			rule = real
		}
		if dir != rule && !strings.HasPrefix(dir, strings.TrimSuffix(rule, "/")+"/") || len(m.Key) <= best {
			continue
		}
		best = len(m.Key)
		switch m.Val.Str {
		case "DO_NOT_TRUST":
			verdict = "untrusted"
		case "TRUST_FOLDER", "TRUST_PARENT":
			verdict = "trusted"
		}
	}
	return verdict
}

func realDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// geminiTrust trusts the project's folder for a project install.
func geminiTrust(c *setupRun) error {
	c.note("note: %s", geminiHeadless)
	if c.project == "" {
		return nil
	}
	path, err := geminiTrustedFoldersFile()
	if err != nil {
		return err
	}
	f, err := readSettings(path)
	if err != nil {
		return err
	}
	doc, err := jsonedit.Parse(f.data, true)
	if err != nil {
		c.note("next: Gemini CLI reads %s only in a trusted folder, and %s is not JSON setup can edit (%v): trust the folder when Gemini asks", c.file, f.where(), err)
		return nil
	}
	dir := realDir(c.project)
	switch geminiTrustOf(doc, dir) {
	case "trusted":
		return nil
	case "untrusted":
		c.note("warning: Gemini CLI: %s marks %s DO_NOT_TRUST, so Gemini ignores its .gemini/settings.json: use --user", f.where(), dir)
		return nil
	}
	if c.dryRun {
		c.note("would trust %s in %s (Gemini CLI reads .gemini/settings.json only in a trusted folder)", dir, f.where())
		return nil
	}
	doc.Append(doc.Root(), dir, "TRUST_FOLDER")
	if err := f.writable(); err != nil {
		return err
	}
	out, err := doc.Bytes()
	if err != nil {
		return err
	}
	if err := f.write(out); err != nil {
		return err
	}
	c.note("Gemini CLI (%s): trusted the folder %s (Gemini reads its .gemini/settings.json only then)", f.where(), dir)
	return nil
}

// geminiWillRun lists why Gemini would not run the hooks.
func geminiWillRun(c *setupRun) []string {
	var problems []string
	if e := c.final.Root().Get("hooksConfig").Get("enabled"); e != nil && string(c.final.Text(e)) == "false" {
		problems = append(problems, `hooksConfig.enabled is false: Gemini runs no hooks`)
	}
	if c.project == "" {
		return problems
	}
	path, err := geminiTrustedFoldersFile()
	if err != nil {
		return append(problems, err.Error())
	}
	f, err := readSettings(path)
	if err != nil {
		return append(problems, err.Error())
	}
	doc, err := jsonedit.Parse(f.data, true)
	if err != nil {
		return append(problems, f.where()+": "+err.Error())
	}
	if geminiTrustOf(doc, realDir(c.project)) != "trusted" {
		problems = append(problems, "Gemini CLI does not trust "+c.project+" (interactive runs ignore .gemini/settings.json there)")
	}
	return problems
}
