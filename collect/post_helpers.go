package collect

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Helpers the collectors share to build a Post.

// contentID is a stable id for items that carry none (reviews on a page):
// a short hash of the parts that identify them.
func contentID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// joinText joins a title and a body the way every collector shows them: a
// blank line between, either part may be empty, and a body that merely
// repeats the title is dropped.
func joinText(title, body string) string {
	title, body = strings.TrimSpace(title), strings.TrimSpace(body)
	switch {
	case title == "":
		return body
	case body == "" || body == title:
		return title
	case strings.HasPrefix(body, title+"\n"):
		return body
	}
	return title + "\n\n" + body
}

// orDefault returns v, or def when v is empty.
func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return strings.TrimRight(strings.TrimSpace(v), "/")
}
