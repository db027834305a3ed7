package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"earshot/capability"
)

// Request bodies are JSON, read strictly and the same way on REST, the login
// endpoint and /mcp: encoding/json alone would silently store U+FFFD for a
// lone surrogate escape ("\ud800") and keep the last of two equal keys, so
// what was stored would differ from what the client meant. Such bodies are
// refused with a VALIDATION_ERROR that says why.

// checkJSONBody refuses invalid UTF-8, lone UTF-16 surrogate escapes and
// duplicate object keys. A body that is not JSON at all passes: the decoder
// that follows reports the syntax error in its own words.
func checkJSONBody(body []byte) *capability.Error {
	if !utf8.Valid(body) {
		return capability.Invalid("", "request body must be valid UTF-8")
	}
	if err := checkSurrogates(body); err != nil {
		return err
	}
	return checkDuplicateKeys(body)
}

// checkSurrogates finds \u escapes of UTF-16 surrogates that are not a
// high surrogate followed by a low one.
func checkSurrogates(b []byte) *capability.Error {
	if !bytes.Contains(b, []byte(`\u`)) && !bytes.Contains(b, []byte(`\U`)) {
		return nil
	}
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 >= len(b) {
				return nil
			}
			if b[i+1] != 'u' {
				i++ // a one-character escape
				continue
			}
			r, ok := hex4(b, i+2)
			if !ok {
				return nil // a syntax error, reported by the decoder
			}
			switch {
			case r >= 0xD800 && r < 0xDC00:
				lo, ok := -1, i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u'
				if ok {
					if v, ok2 := hex4(b, i+8); ok2 {
						lo = v
					}
				}
				if lo < 0xDC00 || lo >= 0xE000 {
					return capability.Invalid("", `request body holds a lone UTF-16 surrogate escape (\u%04x): a high surrogate must be followed by a low one; send the character itself or a valid pair`, r)
				}
				i += 11
			case r >= 0xDC00 && r < 0xE000:
				return capability.Invalid("", `request body holds a lone UTF-16 surrogate escape (\u%04x) that is not part of a pair`, r)
			default:
				i += 5
			}
		}
	}
	return nil
}

func hex4(b []byte, at int) (int, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// checkDuplicateKeys walks the JSON tokens and refuses an object that names
// one key twice, at any depth.
func checkDuplicateKeys(b []byte) *capability.Error {
	type frame struct {
		object  bool
		wantKey bool
		keys    map[string]bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return nil // end, or a syntax error the decoder reports
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if top != nil && top.object {
					top.wantKey = true // this container is the member's value
				}
				stack = append(stack, &frame{object: d == '{', wantKey: d == '{', keys: map[string]bool{}})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if top == nil || !top.object {
			continue
		}
		if top.wantKey {
			key, _ := tok.(string)
			if top.keys[key] {
				return capability.Invalid(key, "the key %q appears twice in one JSON object; send each key once", key)
			}
			top.keys[key] = true
			top.wantKey = false
		} else {
			top.wantKey = true
		}
	}
}

// checkContentType refuses a request body that is not declared as JSON: a
// form or text/xml body is not read as JSON by accident (HTML forms post
// cross-site without a preflight; JSON does not).
func checkContentType(r *http.Request) *capability.Error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))) {
		return nil
	}
	if ct == "" {
		ct = "none"
	}
	return &capability.Error{Status: http.StatusUnsupportedMediaType, Code: "UNSUPPORTED_MEDIA_TYPE",
		Message: "the request body must be JSON sent with Content-Type: application/json (got " + ct + ")"}
}
