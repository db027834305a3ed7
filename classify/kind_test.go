package classify

import (
	"context"
	"strings"
	"testing"
)

// Issue 27: what a post is on its platform (a GitHub issue, its labels)
// reaches the model with the post, a source-aware prior.
func TestOllamaPromptCarriesKindAndLabels(t *testing.T) {
	f, srv := newFake(t, func(int) (int, string) { return 200, goodAnswer })
	o := NewOllama(OllamaConfig{Host: srv.URL, Model: "test-model", HTTPClient: srv.Client()})
	if _, err := o.Classify(context.Background(), Input{Text: "Crash when syncing", Source: "github", Kind: "issue", Tags: []string{"bug", "sync"},
		Keywords: []string{"Acme"}, Project: Project{Name: "Acme"}}); err != nil {
		t.Fatal(err)
	}
	msgs := f.requests[0]["messages"].([]any)
	user := msgs[len(msgs)-1].(map[string]any)["content"].(string)
	for _, s := range []string{"Source: github", "Kind: issue", "Labels: bug, sync"} {
		if !strings.Contains(user, s) {
			t.Errorf("user prompt lacks %q:\n%s", s, user)
		}
	}
}
