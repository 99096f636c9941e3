package hook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/perm-peer/perm-peer/store"
)

// What a Claude Code transcript says became of a tool call.
type resultKind int

const (
	resultRan          resultKind = iota + 1 // the tool ran
	resultUserRejected                       // the user rejected it in the dialog
	resultRefused                            // refused otherwise (a rule, -p mode, an interruption)
	// resultUnknown: the transcript never told (a later turn began
	// without the call's result)
	resultUnknown
)

type toolResult struct {
	kind resultKind
	note string // the user's words with a rejection
}

// userRejected starts the tool result Claude Code writes when the user
// rejects a call in its dialog (2.1.x); toolDenialKind "user-rejected" says
// the same in newer transcripts, and userFeedback holds the user's words.
const userRejected = "The user doesn't want to proceed with this tool use."

// maxTranscriptLine bounds one transcript line (a tool result may carry a
// whole file).
const maxTranscriptLine = 16 << 20

// maxTranscriptScan bounds the bytes one hook call reads from the
// transcript to settle its pending asks: the scan starts where the
// earliest of them was left to the host, so it covers the results of a
// turn, not the session (a stale ask is forgotten when the next turn
// begins).
const maxTranscriptScan = 64 << 20

// transcriptResults reads the tool results of the pending asks from a
// Claude Code transcript (JSON lines; the user entries carry tool_result
// blocks). The last result of an id wins.
func transcriptResults(path string, pending []store.PendingAsk) (map[string]toolResult, error) {
	// non-blocking: a FIFO must not hold the call until the watchdog
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("transcript %s is not a regular file", path)
	}
	want := map[string]bool{}
	from := int64(-1)
	for _, a := range pending {
		want[a.ID] = true
		if from < 0 || a.Offset < from {
			from = a.Offset
		}
	}
	if from > 0 {
		// the host writes whole lines: the offset is a line's start (a
		// partial line would only fail to parse, and be skipped)
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			return nil, fmt.Errorf("seek transcript: %w", err)
		}
	}
	out := map[string]toolResult{}
	sc := bufio.NewScanner(io.LimitReader(f, maxTranscriptScan))
	sc.Buffer(make([]byte, 64<<10), maxTranscriptLine)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"tool_result"`)) {
			continue
		}
		var e transcriptEntry
		if json.Unmarshal(line, &e) != nil || e.Type != "user" {
			continue
		}
		for _, b := range e.Message.Content {
			if b.Type == "tool_result" && want[b.ToolUseID] {
				out[b.ToolUseID] = e.result(b)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	return out, nil
}

type transcriptEntry struct {
	Type    string `json:"type"`
	Message struct {
		Content []contentBlock `json:"content"`
	} `json:"message"`
	ToolDenialKind string `json:"toolDenialKind"`
	UserFeedback   string `json:"userFeedback"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

func (e transcriptEntry) result(b contentBlock) toolResult {
	text := blockText(b.Content)
	switch {
	case e.ToolDenialKind == "user-rejected" || b.IsError && strings.HasPrefix(text, userRejected):
		note := strings.TrimSpace(e.UserFeedback)
		if note == "" {
			note = feedbackIn(text)
		}
		return toolResult{kind: resultUserRejected, note: note}
	case b.IsError && e.ToolDenialKind != "":
		return toolResult{kind: resultRefused}
	case b.IsError && (strings.HasPrefix(text, "Permission to use") || strings.HasPrefix(text, "Permission for this") ||
		strings.Contains(text, "haven't granted it yet")):
		return toolResult{kind: resultRefused}
	}
	return toolResult{kind: resultRan} // a tool's own error still means it ran
}

// feedbackIn is the user's words Claude Code appends to a rejection
// ("... the user said:\n<words>").
func feedbackIn(text string) string {
	const marker = "the user said:"
	i := strings.LastIndex(text, marker)
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(text[i+len(marker):])
}

// blockText is a tool_result's content as text: a string, or its text
// blocks joined.
func blockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
