package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"earshot/store"
)

// The mention page has a correction form (category and sentiment, the
// c key in the help); posting it corrects the mention through
// correct_mention and comes back with a flash; a bad value is shown next
// to the form.
func TestMentionCorrectionForm(t *testing.T) {
	e := newEnv(t)
	e.seed(1)
	ms, _ := e.st.ListMentions(context.Background(), store.MentionFilter{ProjectID: e.proj.ID}, nil, 10)
	c := e.client()
	c.login("owner@example.com")
	page := "/mentions/" + ms[0].ID
	_, body, _ := c.get(page)
	must(t, body, `action="/a/correct_mention"`, `id="c-cat"`, `name="sentiment"`, `<option value="misinformation"`, "<kbd>c</kbd>")
	st, _, h := c.post("/a/correct_mention", url.Values{"id": {ms[0].ID}, "category": {"misinformation"}, "sentiment": {"neutral"}, "_back": {page}}, true)
	if st != http.StatusSeeOther || h.Get("Location") != page {
		t.Fatalf("correct: %d %q", st, h.Get("Location"))
	}
	m, _ := e.st.Mention(context.Background(), e.proj.ID, ms[0].ID)
	if m.Category != "misinformation" || m.Sentiment != "neutral" || !strings.HasPrefix(m.CategoryReason, store.CorrectedReason) {
		t.Fatalf("after the form: %s/%s %q", m.Category, m.Sentiment, m.CategoryReason)
	}
	_, body, _ = c.get(page)
	must(t, body, "Classification corrected", `<option value="misinformation" selected>`, store.CorrectedReason)
	st, body, _ = c.post("/a/correct_mention", url.Values{"id": {ms[0].ID}, "category": {"praise"}, "_back": {page}}, true)
	if st == http.StatusSeeOther || !strings.Contains(body, "category") {
		t.Errorf("bad category: %d", st)
	}
}
