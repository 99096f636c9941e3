package main

// claudeNext says what Claude Code still needs: it reads hooks when a
// session starts.
func claudeNext(c *setupRun) error {
	c.note("next: Claude Code reads hooks when a session starts: restart running sessions (its /hooks screen lists them); perm-peer doctor checks the install")
	return nil
}

// claudeWillRun lists why Claude Code would not run the hooks.
func claudeWillRun(c *setupRun) []string {
	if d := c.final.Root().Get("disableAllHooks"); d != nil && string(c.final.Text(d)) == "true" {
		return []string{"disableAllHooks is true: Claude Code runs no hooks"}
	}
	return nil
}
