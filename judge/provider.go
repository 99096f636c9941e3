package judge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// A provider is the wire dialect of one model API. The judge builds the
// same prompt for every provider; a provider only says where it goes, how
// it is encoded and authenticated, and how the answer is read back. Every
// decode is strict (checkEnvelope): an ambiguous answer is an error, and an
// error escalates.
type provider interface {
	// path is appended to the configured endpoint.
	path() string
	encode(cfg Config, ex exchange) ([]byte, error)
	authorize(h http.Header, apiKey string)
	decode(data []byte) (answer, error)
}

// exchange is one judge request, provider-neutral. prefix is the part of
// the user message that stays byte-identical for a whole turn (a provider
// with prompt caching marks it cacheable); rest follows it.
type exchange struct {
	system string
	prefix string
	rest   string
}

// answer is the model's text with the tokens the call used.
type answer struct {
	content string
	usage   Usage
}

// Usage counts the tokens of one model call, as the provider reports them
// (zero where it reports nothing).
type Usage struct {
	InputTokens      int `json:"inputTokens"`
	OutputTokens     int `json:"outputTokens"`
	CacheReadTokens  int `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int `json:"cacheWriteTokens,omitempty"`
}

func (u *Usage) add(v Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadTokens += v.CacheReadTokens
	u.CacheWriteTokens += v.CacheWriteTokens
}

// providerFor maps the policy's provider name ("" is openai) to its dialect.
func providerFor(name string) (provider, error) {
	switch name {
	case "", protocol.ProviderOpenAI:
		return openAI{}, nil
	case protocol.ProviderAnthropic:
		return anthropic{}, nil
	}
	return nil, fmt.Errorf("judge: unknown provider %q (want %q or %q)", name, protocol.ProviderOpenAI, protocol.ProviderAnthropic)
}

// openAI speaks the chat-completions API (OpenAI, Ollama, llama.cpp,
// vLLM, LM Studio, ...). The endpoint is the API base, such as
// http://127.0.0.1:11434/v1.
type openAI struct{}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatRequest is the OpenAI-compatible request body. Temperature has no
// omitempty: 0 must be sent, not left to the server's default.
type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens"`
	Stream      bool          `json:"stream"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func (openAI) path() string { return "/chat/completions" }

func (openAI) encode(cfg Config, ex exchange) ([]byte, error) {
	return json.Marshal(chatRequest{
		Model:     cfg.Model,
		Messages:  []chatMessage{{Role: "system", Content: ex.system}, {Role: "user", Content: ex.prefix + ex.rest}},
		MaxTokens: cfg.MaxTokens,
	})
}

func (openAI) authorize(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
}

// openAIFields are the keys the chat decode reads.
var openAIFields = []string{"choices", "message", "content"}

func (openAI) decode(data []byte) (answer, error) {
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return answer{}, fmt.Errorf("decode response: %w", err)
	}
	if err := checkEnvelope(data, openAIFields); err != nil {
		return answer{}, fmt.Errorf("ambiguous response: %w", err)
	}
	if len(cr.Choices) == 0 || cr.Choices[0].Message.Content == nil {
		return answer{}, fmt.Errorf("response has no choices[0].message.content")
	}
	return answer{content: *cr.Choices[0].Message.Content, usage: Usage{
		InputTokens:     cr.Usage.PromptTokens,
		OutputTokens:    cr.Usage.CompletionTokens,
		CacheReadTokens: cr.Usage.PromptTokensDetails.CachedTokens,
	}}, nil
}

// anthropic speaks the Messages API. The endpoint is the API base, such as
// https://api.anthropic.com/v1. The system prompt and the turn's stable
// prefix are marked for prompt caching: within a turn every call after the
// first reads them from the cache.
type anthropic struct{}

// AnthropicVersion is the API version header the judge sends.
const AnthropicVersion = "2023-06-01"

type textBlock struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

type messagesRequest struct {
	Model       string      `json:"model"`
	MaxTokens   int         `json:"max_tokens"`
	Temperature float64     `json:"temperature"`
	System      []textBlock `json:"system"`
	Messages    []struct {
		Role    string      `json:"role"`
		Content []textBlock `json:"content"`
	} `json:"messages"`
}

type messagesResponse struct {
	Type    string `json:"type"`
	Content []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	} `json:"content"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Usage struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

func (anthropic) path() string { return "/messages" }

func (anthropic) encode(cfg Config, ex exchange) ([]byte, error) {
	req := messagesRequest{
		Model:     cfg.Model,
		MaxTokens: cfg.MaxTokens,
		System:    []textBlock{{Type: "text", Text: ex.system, CacheControl: ephemeral}},
	}
	var content []textBlock
	if ex.prefix != "" {
		content = append(content, textBlock{Type: "text", Text: ex.prefix, CacheControl: ephemeral})
	}
	if ex.rest != "" || len(content) == 0 {
		content = append(content, textBlock{Type: "text", Text: ex.rest})
	}
	req.Messages = append(req.Messages, struct {
		Role    string      `json:"role"`
		Content []textBlock `json:"content"`
	}{Role: "user", Content: content})
	return json.Marshal(req)
}

func (anthropic) authorize(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("x-api-key", apiKey)
	}
	h.Set("anthropic-version", AnthropicVersion)
}

// anthropicFields are the keys the Messages decode reads.
var anthropicFields = []string{"type", "content", "text", "error"}

// decode takes the one text block of a message. Thinking blocks are
// skipped; no text block, or more than one, is an error: which one would
// be the verdict?
func (anthropic) decode(data []byte) (answer, error) {
	var mr messagesResponse
	if err := json.Unmarshal(data, &mr); err != nil {
		return answer{}, fmt.Errorf("decode response: %w", err)
	}
	if err := checkEnvelope(data, anthropicFields); err != nil {
		return answer{}, fmt.Errorf("ambiguous response: %w", err)
	}
	if mr.Error != nil || mr.Type == "error" {
		msg := ""
		if mr.Error != nil {
			msg = mr.Error.Type + ": " + mr.Error.Message
		}
		return answer{}, fmt.Errorf("error response: %s", snippet(msg))
	}
	if mr.Type != "message" {
		return answer{}, fmt.Errorf("response type %q is not \"message\"", mr.Type)
	}
	var texts []string
	for _, b := range mr.Content {
		switch b.Type {
		case "text":
			if b.Text == nil {
				return answer{}, fmt.Errorf("text block without text")
			}
			texts = append(texts, *b.Text)
		case "thinking", "redacted_thinking":
		default:
			return answer{}, fmt.Errorf("unexpected content block %q", b.Type)
		}
	}
	if len(texts) != 1 {
		return answer{}, fmt.Errorf("response has %d text blocks, want 1", len(texts))
	}
	return answer{content: texts[0], usage: Usage{
		InputTokens:      mr.Usage.InputTokens,
		OutputTokens:     mr.Usage.OutputTokens,
		CacheReadTokens:  mr.Usage.CacheReadInputTokens,
		CacheWriteTokens: mr.Usage.CacheCreationInputTokens,
	}}, nil
}

// splitPrefix cuts a built user message into the turn's stable prefix and
// the rest. A message clipped so that it no longer starts with the whole
// prefix is sent as one uncached block.
func splitPrefix(prefix, user string) (string, string) {
	if prefix != "" && strings.HasPrefix(user, prefix) {
		return prefix, user[len(prefix):]
	}
	return "", user
}
