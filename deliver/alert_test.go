package deliver

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"earshot/netguard"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update to accept)\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

var sampleMentions = []AlertMention{
	{
		Source:       "reddit",
		AuthorHandle: "u/angry_dev",
		URL:          "https://www.reddit.com/r/devops/comments/abc123/",
		Text:         "Acme's checkout has been failing for two hours now. Every payment ends with a 502 and support doesn't answer. Anyone else seeing this? I'm about to switch providers, this is the third outage this month and our own customers are starting to notice.",
		Summary:      "Checkout failing with 502 errors for two hours; user threatens to switch.",
		Category:     "bug_report",
		Sentiment:    "negative",
		Urgency:      87,
		PublishedAt:  time.Date(2026, 3, 14, 9, 26, 53, 0, time.FixedZone("CET", 3600)),
		MonitorName:  "Acme brand",
		ProjectName:  "Acme",
		DashboardURL: "https://earshot.example.com/mentions/men_01",
	},
	{
		Source:       "hackernews",
		AuthorHandle: "pg",
		URL:          "https://news.ycombinator.com/item?id=1&x=<y>",
		Text:         "Acme <3 — “the best” & fastest API I've used.\n\nWould recommend.",
		Category:     "testimonial",
		Sentiment:    "positive",
		Urgency:      12,
		PublishedAt:  time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC),
		MonitorName:  "Acme brand",
		ProjectName:  "Acme",
	},
}

func TestEmailText(t *testing.T) {
	subject, body := EmailText("Urgent complaints", sampleMentions[:1])
	if subject != "[Earshot] Urgent complaints: new mention on reddit by u/angry_dev" {
		t.Errorf("subject %q", subject)
	}
	golden(t, "email_single.txt", "Subject: "+subject+"\n\n"+body)

	subject, body = EmailText("Daily digest", sampleMentions)
	if subject != "[Earshot] Daily digest: 2 new mentions" {
		t.Errorf("subject %q", subject)
	}
	golden(t, "email_digest.txt", "Subject: "+subject+"\n\n"+body)

	subject, _ = EmailText("Quiet\nday", nil)
	if strings.ContainsAny(subject, "\r\n") {
		t.Errorf("subject %q has a line break", subject)
	}
}

func TestSlackMessage(t *testing.T) {
	for i, m := range sampleMentions {
		raw := SlackMessage(m)
		var msg map[string]string
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatalf("not JSON: %v: %s", err, raw)
		}
		if len(msg) != 1 || msg["text"] == "" {
			t.Fatalf("want exactly a text field: %s", raw)
		}
		golden(t, []string{"slack_single.txt", "slack_escaped.txt"}[i], msg["text"]+"\n")
	}
	// User text cannot open Slack links or mentions.
	text := string(SlackMessage(AlertMention{Summary: "<!channel> <https://evil|click> & co"}))
	if strings.Contains(text, "<!channel>") || strings.Contains(text, "<https://evil") {
		t.Errorf("unescaped user text: %s", text)
	}
}

func TestPostSlack(t *testing.T) {
	var got struct {
		method, contentType, userAgent string
		body                           []byte
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.contentType, got.userAgent = r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent")
		got.body, _ = io.ReadAll(r.Body)
		if r.URL.Path != "/services/T000/B000/XXXX" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "no_service")
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()

	body := SlackMessage(sampleMentions[0])
	res := PostSlack(context.Background(), netguard.NewClient(true, 0), srv.URL+"/services/T000/B000/XXXX", body)
	if res.Outcome != Success || string(res.Body) != "ok" {
		t.Fatalf("result %+v", res)
	}
	if got.method != http.MethodPost || got.contentType != "application/json" || string(got.body) != string(body) || got.userAgent != UserAgent {
		t.Fatalf("request %+v", got)
	}

	res = PostSlack(context.Background(), netguard.NewClient(true, 0), srv.URL+"/services/gone", body)
	if res.Outcome != Retry || res.StatusCode != http.StatusNotFound || string(res.Body) != "no_service" {
		t.Fatalf("result %+v", res)
	}

	// The same SSRF guard applies to Slack URLs.
	res = PostSlack(context.Background(), netguard.NewClient(false, 0), srv.URL+"/services/T000/B000/XXXX", body)
	if res.Outcome != Retry || res.StatusCode != 0 {
		t.Fatalf("loopback Slack URL: %+v", res)
	}
}
