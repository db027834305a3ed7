package deliver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"earshot/webhooksig"
)

// npmVectorSecret is the secret of the published Standard Webhooks test
// vector (24 bytes, shorter than the ones Earshot issues).
const npmVectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// npmLine is one message for e2e/webhooks/verify.mjs.
type npmLine struct {
	Secret    string   `json:"secret,omitempty"`
	Secrets   []string `json:"secrets,omitempty"` // each must verify on its own
	ID        string   `json:"id"`
	Timestamp string   `json:"timestamp"`
	Body      string   `json:"body"`
	Signature string   `json:"signature"`
	Expect    string   `json:"expect"` // accept or reject
}

// TestStandardWebhooksNPM checks our signatures with the reference
// standardwebhooks npm library, an implementation we did not write. CI runs
// `npm ci --prefix e2e/webhooks` first; without node or node_modules the
// test skips.
func TestStandardWebhooksNPM(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "e2e", "webhooks"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks")); err != nil {
		t.Skip("e2e/webhooks/node_modules missing; run npm ci --prefix e2e/webhooks")
	}

	// The library checks the timestamp against its clock (5 min tolerance),
	// so the messages are signed now.
	now := time.Now()
	ts := strconv.FormatInt(now.Unix(), 10)
	bodies := []string{
		`{}`,
		`{"type":"mention.created","data":{"mention":{"text":"plain ASCII"}}}`,
		`{"text":"Grüße aus Köln — “quotes” and ‘apostrophes’"}`,
		`{"text":"日本語のテキスト、中文，한국어"}`,
		`{"text":"emoji 🚀🔥👍🏽 and a ZWJ family 👨‍👩‍👧"}`,
		`{"text":"right-to-left: مرحبا بالعالم שלום"}`,
		`{"text":"separators \u2028 \u2029 and escapes \" \\ \n \t"}`,
		"{\"text\":\"raw separators \u2028 \u2029 inside\"}", // real U+2028/U+2029, legal in JSON strings
		`{"nested":{"a":[1,2.5,-3e10,true,false,null],"b":"x"}}`,
		`  {"spaced" : "body with leading spaces and trailing newline"}` + "\n",
	}

	var lines []npmLine
	add := func(secrets []string, id string, body string) {
		header, err := webhooksig.SignatureHeader(secrets, id, now, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, npmLine{Secrets: secrets, ID: id, Timestamp: ts, Body: body, Signature: header, Expect: "accept"})
	}
	for i, body := range bodies {
		add([]string{webhooksig.NewSecret()}, fmt.Sprintf("evt_%02d", i), body)
	}
	// Rotation: one header carrying the old and the new signature; the
	// library must accept it with either secret.
	for i, body := range bodies[:6] {
		add([]string{webhooksig.NewSecret(), webhooksig.NewSecret()}, fmt.Sprintf("evt_rot_%02d", i), body)
	}
	// The published vector's 24-byte secret, and an id with unusual characters.
	add([]string{npmVectorSecret}, "msg_p5jXN8AQM9LWM0D4loKWxJek", bodies[2])
	add([]string{npmVectorSecret, webhooksig.NewSecret(), webhooksig.NewSecret()}, "evt_ünïcødé-id.with.dots", bodies[4])

	// Negative controls: the library must reject these, so a verify.mjs
	// that accepted everything would fail the test.
	good := lines[1]
	tampered := good
	tampered.Body = `{"type":"mention.created","data":{"mention":{"text":"plain ASCIi"}}}`
	tampered.Expect = "reject"
	wrongSecret := good
	wrongSecret.Secrets = []string{webhooksig.NewSecret()}
	wrongSecret.Expect = "reject"
	otherID := good
	otherID.ID = "evt_other"
	otherID.Expect = "reject"
	lines = append(lines, tampered, wrongSecret, otherID)

	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "verify.mjs")
	cmd.Dir = dir
	cmd.Stdin = &in
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("standardwebhooks rejected our signatures: %v\n%s", err, out)
	}
	t.Logf("%d messages: %s", len(lines), bytes.TrimSpace(out))
}
