package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// verdictError is a model reply that is not one well-formed verdict.
type verdictError struct{ err error }

func (e *verdictError) Error() string { return e.err.Error() }
func (e *verdictError) Unwrap() error { return e.err }

// URL is where the judge sends its requests (the endpoint and the
// provider's path).
func (j *Judge) URL() string {
	if j == nil {
		return ""
	}
	return j.url
}

// Provider is the configured provider's name.
func (j *Judge) Provider() string {
	if j == nil || j.cfg.Provider == "" {
		return "openai"
	}
	return j.cfg.Provider
}

// Diagnose says, in one sentence a user can act on, what is likely
// misconfigured when a judge call failed with err; "" for nil.
func (j *Judge) Diagnose(err error) string {
	if err == nil {
		return ""
	}
	var se *statusError
	var te *transportError
	var ve *verdictError
	switch {
	case errors.As(err, &se):
		switch {
		case se.code == 401 || se.code == 403:
			return "the server refused the API key: check the environment variable that judge.apiKeyEnv names"
		case se.code == 404:
			return fmt.Sprintf("%s was not found (or the model is unknown to the server): judge.endpoint must be the API base (such as https://api.anthropic.com/v1 or http://127.0.0.1:11434/v1), judge.provider must be the API the server speaks, and judge.model a model it serves", j.url)
		case se.code == 400 || se.code == 422:
			return "the server rejected the request: check judge.model and that judge.provider matches the server's API"
		case se.code == 429 || se.code == 529 || se.code >= 500:
			return "the server is overloaded or failing: try again, or raise judge.timeoutMs"
		}
		return "the server answered with an HTTP error"
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer within judge.timeoutMs: a local model may need a longer timeout, or the server is not answering"
	case errors.As(err, &te):
		return fmt.Sprintf("nothing answered at %s: is the server running, and is judge.endpoint right?", j.url)
	case errors.As(err, &ve):
		return "the model did not answer with the verdict JSON: use a model that follows instructions (an instruct or chat model of 7B or more)"
	case strings.Contains(err.Error(), "provider"), strings.Contains(err.Error(), "endpoint"), strings.Contains(err.Error(), "model is empty"):
		return "fix the judge block of the user policy"
	}
	return "the response could not be read"
}
