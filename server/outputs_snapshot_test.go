package server_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
	"time"

	"earshot/server"
)

// TestOpenAPIOutputSnapshots compares the success response of every
// operation in the OpenAPI document (its data schema, derived from the
// output types' JSON tags and docs) with testdata/outputschemas/<operation>.json.
// The output schema is the public format of REST, of MCP results and of
// the records inside webhook payloads: renaming a field of an output type,
// or of a row it is copied from, must fail here, not reach users. Regenerate
// with -update after an intended change.
func TestOpenAPIOutputSnapshots(t *testing.T) {
	e := newAgentsEnv(t)
	doc := server.OpenAPI(e.svc)
	// Through JSON, so the snapshot is what clients read.
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Paths map[string]map[string]struct {
			OperationID string                     `json:"operationId"`
			Responses   map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &parsed); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "outputschemas")
	seen := map[string]bool{}
	for _, item := range parsed.Paths {
		for _, op := range item {
			ok := op.Responses["200"]
			if op.OperationID == "" || ok == nil {
				t.Errorf("operation %q has no operationId or no 200 response", op.OperationID)
				continue
			}
			var got bytes.Buffer
			if err := json.Indent(&got, ok, "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteByte('\n')
			name := op.OperationID + ".json"
			seen[name] = true
			compareGolden(t, filepath.Join(dir, name), got.Bytes(), "operation "+op.OperationID)
		}
	}
	pruneGolden(t, dir, seen)
}

// compareGolden compares got with the file at path, or rewrites it with
// -update.
func compareGolden(t *testing.T, path string, got []byte, what string) {
	t.Helper()
	if updateToolsnaps() {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s has no snapshot %s (run go test ./server -run %s -update)", what, path, t.Name())
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (if intended, run go test ./server -run %s -update):\n%s", what, path, t.Name(), got)
	}
}

// pruneGolden fails on (or, with -update, removes) snapshots in dir that
// nothing produced any more.
func pruneGolden(t *testing.T, dir string, seen map[string]bool) {
	t.Helper()
	files, _ := os.ReadDir(dir)
	var stale []string
	for _, f := range files {
		if !seen[f.Name()] {
			stale = append(stale, f.Name())
		}
	}
	sort.Strings(stale)
	for _, name := range stale {
		if updateToolsnaps() {
			os.Remove(filepath.Join(dir, name))
			continue
		}
		t.Errorf("snapshot %s has nothing to compare with any more (run with -update)", filepath.Join(dir, name))
	}
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
)

// normaliseVolatile replaces what differs between runs in a JSON body:
// each distinct UUID becomes <id-N> (numbered in order of appearance, so
// equal ids stay equal) and each time within a month of now becomes <now>
// (times a test chose itself stay, they are part of the format).
func normaliseVolatile(body []byte, known map[string]string) []byte {
	ids := map[string]string{}
	body = uuidRE.ReplaceAllFunc(body, func(b []byte) []byte {
		s := string(b)
		if k, ok := known[s]; ok {
			return []byte(k)
		}
		if _, ok := ids[s]; !ok {
			ids[s] = "<id-" + itoa(len(ids)+1) + ">"
		}
		return []byte(ids[s])
	})
	now := time.Now()
	return timeRE.ReplaceAllFunc(body, func(b []byte) []byte {
		ts, err := time.Parse(time.RFC3339Nano, string(b))
		if err == nil && ts.After(now.Add(-31*24*time.Hour)) && ts.Before(now.Add(31*24*time.Hour)) {
			return []byte("<now>")
		}
		return b
	})
}
