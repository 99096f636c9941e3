package judge

import (
	"bytes"
	"context"
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
	if _, err := providerFor(jc.Provider); err != nil {
		return Config{}, err
	}
	cfg := Config{
		Provider:    jc.Provider,
		Environment: jc.Environment,
		Endpoint:    jc.Endpoint,
		Model:       jc.Model,
		Timeout:     time.Duration(jc.TimeoutMs) * time.Millisecond,
		MaxTokens:   jc.MaxTokens,
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

// transportError is a failure to exchange bytes with the server (refused or
// dropped connection, broken body): the only kind of error that is retried.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// complete sends one request and returns the model's text. The timeout
// covers the whole call, retry included. A transport error is retried
// exactly once; HTTP error statuses and malformed bodies are not (the
// server answered; asking again would only add latency).
func (j *Judge) complete(ctx context.Context, ex exchange) (answer, error) {
	body, err := j.provider.encode(j.cfg, ex)
	if err != nil {
		return answer{}, fmt.Errorf("judge: encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	ans, err := j.post(ctx, body)
	var te *transportError
	if errors.As(err, &te) && ctx.Err() == nil {
		ans, err = j.post(ctx, body)
	}
	if err != nil && ctx.Err() != nil {
		return answer{}, fmt.Errorf("judge: model call to %s: %w", j.url, ctx.Err())
	}
	return ans, err
}

func (j *Judge) post(ctx context.Context, body []byte) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.url, bytes.NewReader(body))
	if err != nil {
		return answer{}, fmt.Errorf("judge: build request for %s: %w", j.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	j.provider.authorize(req.Header, j.cfg.APIKey)
	resp, err := j.client.Do(req)
	if err != nil {
		return answer{}, &transportError{fmt.Errorf("judge: POST %s: %w", j.url, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return answer{}, &transportError{fmt.Errorf("judge: read response from %s: %w", j.url, err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return answer{}, &statusError{code: resp.StatusCode, err: fmt.Errorf("judge: model HTTP %d from %s: %s", resp.StatusCode, j.url, snippet(string(data)))}
	}
	if len(data) > maxResponseBytes {
		return answer{}, fmt.Errorf("judge: response from %s over %d bytes", j.url, maxResponseBytes)
	}
	ans, err := j.provider.decode(data)
	if err != nil {
		return answer{}, fmt.Errorf("judge: %s: %w", j.url, err)
	}
	return ans, nil
}

// statusError is an HTTP error status from the model server; Diagnose reads
// its code.
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// snippet is a short single-line excerpt of a reply for error messages.
func snippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:cutHead(s, 200)] + "…"
	}
	return fmt.Sprintf("%q", s)
}
