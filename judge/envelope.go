package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/perm-peer/perm-peer/jsonkey"
)

// The chat completion envelope is decoded as strictly as the verdict in it:
// encoding/json matches keys case-insensitively and lets the last of
// repeated keys win, so {"choices":[escalate],"Choices":[allow]} would hand
// over the allow. A buggy or hostile endpoint or proxy gets an error (the
// call escalates) instead.

// checkEnvelope rejects, at any depth, a key repeated in its object (also
// when differing only in case) and a case variant of one of fields, the
// keys the provider's decode reads: such a key is refused, not folded onto
// the field.
func checkEnvelope(data []byte, fields []string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := envelopeValue(dec, fields, 0); err != nil {
		return err
	}
	return nil
}

// maxEnvelopeDepth bounds nesting, as encoding/json does.
const maxEnvelopeDepth = 10000

func envelopeValue(dec *json.Decoder, fields []string, depth int) error {
	if depth > maxEnvelopeDepth {
		return errors.New("nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	seen := map[string]string{}
	for dec.More() {
		if d == '{' {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			f := jsonkey.Fold(key)
			if first, dup := seen[f]; dup {
				return fmt.Errorf("key %q repeats %q", key, first)
			}
			seen[f] = key
			for _, field := range fields {
				if f == jsonkey.Fold(field) && key != field {
					return fmt.Errorf("key %q is not %q", key, field)
				}
			}
		}
		if err := envelopeValue(dec, fields, depth+1); err != nil {
			return err
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}
