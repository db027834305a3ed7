package classify

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestRunJSONLines(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"a","text":"The app crashes on start","source":"reddit","keywords":["acme"]}`,
		`not json`,
		``,
		`{"id":7,"text":"Please add a dark mode"}`,
		`{"id":"no-text"}`,
		`{"id":"last","text":"Acme is down, outage everywhere"}`,
	}, "\n") // no final newline
	var out bytes.Buffer
	if err := RunJSONLines(context.Background(), NewBuiltin(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("got %d lines, want 5:\n%s", len(lines), out.String())
	}
	var rows []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("bad output line %q: %v", l, err)
		}
		rows = append(rows, m)
	}
	if rows[0]["id"] != "a" || rows[0]["category"] != "bug_report" || rows[0]["is_relevant"] == nil || rows[0]["ai_summary"] == "" {
		t.Errorf("row 0 = %v", rows[0])
	}
	for _, k := range []string{"id", "category", "sentiment", "urgency", "ai_summary", "is_relevant"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("row 0 lacks %q", k)
		}
	}
	if rows[1]["error"] == nil {
		t.Errorf("bad line got no error: %v", rows[1])
	}
	if rows[2]["id"] != float64(7) || rows[2]["category"] != "product_idea" {
		t.Errorf("row 2 = %v", rows[2])
	}
	if rows[3]["id"] != "no-text" || rows[3]["error"] == nil {
		t.Errorf("row 3 = %v", rows[3])
	}
	if rows[4]["id"] != "last" || rows[4]["urgency"].(float64) < 70 {
		t.Errorf("row 4 = %v", rows[4])
	}
}
