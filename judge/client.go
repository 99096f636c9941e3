package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
)

// Defaults for Config.
const (
	DefaultTimeout   = 8 * time.Second
	DefaultMaxTokens = 200
	// maxResponseBytes bounds the model's HTTP response body.
	maxResponseBytes = 1 << 20
)

// ConfigFromPolicy turns the user policy's judge block into a Config,
// reading the API key from the environment variable named by apiKeyEnv
// (getenv is os.Getenv in production). It fails on an endpoint that is not
// an http(s) URL, an empty model, negative limits, or an apiKeyEnv that names
// an empty variable — a judge that cannot authenticate would only escalate.
// Call it only with the user policy: the project never configures the judge.
func ConfigFromPolicy(jc protocol.JudgeConfig, getenv func(string) string) (Config, error) {
	if err := checkEndpoint(jc.Endpoint); err != nil {
		return Config{}, err
	}
	if strings.TrimSpace(jc.Model) == "" {
		return Config{}, errors.New("judge: model is empty")
	}
	if jc.TimeoutMs < 0 || jc.MaxTokens < 0 {
		return Config{}, fmt.Errorf("judge: timeoutMs %d and maxTokens %d must not be negative", jc.TimeoutMs, jc.MaxTokens)
	}
	cfg := Config{
		Endpoint:  jc.Endpoint,
		Model:     jc.Model,
		Timeout:   time.Duration(jc.TimeoutMs) * time.Millisecond,
		MaxTokens: jc.MaxTokens,
	}
	if jc.APIKeyEnv != "" {
		cfg.APIKey = getenv(jc.APIKeyEnv)
		if cfg.APIKey == "" {
			return Config{}, fmt.Errorf("judge: environment variable %s named by apiKeyEnv is empty", jc.APIKeyEnv)
		}
	}
	return cfg, nil
}

func checkEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("judge: endpoint %q: %w", endpoint, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("judge: endpoint %q is not an http(s) URL", endpoint)
	}
	return nil
}

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
}

// transportError is a failure to exchange bytes with the server (refused or
// dropped connection, broken body): the only kind of error that is retried.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// complete sends one chat completion and returns the first choice's
// content. The timeout covers the whole call, retry included. A transport
// error is retried exactly once; HTTP error statuses and malformed bodies
// are not (the server answered; asking again would only add latency).
func (j *Judge) complete(ctx context.Context, system, user string) (string, error) {
	body, err := j.encodeRequest(system, user)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	content, err := j.post(ctx, body)
	var te *transportError
	if errors.As(err, &te) && ctx.Err() == nil {
		content, err = j.post(ctx, body)
	}
	if err != nil && ctx.Err() != nil {
		return "", fmt.Errorf("judge: model call to %s: %w", j.url, ctx.Err())
	}
	return content, err
}

// encodeRequest is the JSON body of one chat completion.
func (j *Judge) encodeRequest(system, user string) ([]byte, error) {
	body, err := json.Marshal(chatRequest{
		Model:     j.cfg.Model,
		Messages:  []chatMessage{{Role: "system", Content: system}, {Role: "user", Content: user}},
		MaxTokens: j.cfg.MaxTokens,
	})
	if err != nil {
		return nil, fmt.Errorf("judge: encode request: %w", err)
	}
	return body, nil
}

func (j *Judge) post(ctx context.Context, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.url, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("judge: build request for %s: %w", j.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if j.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+j.cfg.APIKey)
	}
	resp, err := j.client.Do(req)
	if err != nil {
		return "", &transportError{fmt.Errorf("judge: POST %s: %w", j.url, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return "", &transportError{fmt.Errorf("judge: read response from %s: %w", j.url, err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("judge: model HTTP %d from %s: %s", resp.StatusCode, j.url, snippet(string(data)))
	}
	if len(data) > maxResponseBytes {
		return "", fmt.Errorf("judge: response from %s over %d bytes", j.url, maxResponseBytes)
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return "", fmt.Errorf("judge: decode response from %s: %w", j.url, err)
	}
	if err := checkEnvelope(data); err != nil {
		return "", fmt.Errorf("judge: ambiguous response from %s: %w", j.url, err)
	}
	if len(cr.Choices) == 0 || cr.Choices[0].Message.Content == nil {
		return "", fmt.Errorf("judge: response from %s has no choices[0].message.content", j.url)
	}
	return *cr.Choices[0].Message.Content, nil
}

// snippet is a short single-line excerpt of a reply for error messages.
func snippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:cutHead(s, 200)] + "…"
	}
	return fmt.Sprintf("%q", s)
}
