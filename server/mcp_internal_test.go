package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/capability"
	"earshot/store/storetest"
)

// fakeExport streams n CSV rows, one with a quoted newline.
type fakeExport struct{ n int }

func (fakeExport) ContentType() string { return "text/csv; charset=utf-8" }
func (fakeExport) Filename() string    { return "mentions.csv" }
func (e fakeExport) Stream(ctx context.Context, w io.Writer) error {
	if _, err := io.WriteString(w, "id,text\n"); err != nil {
		return err
	}
	for i := 0; i < e.n; i++ {
		if _, err := fmt.Fprintf(w, "%d,\"line one\nline two %d\"\n", i, i); err != nil {
			return err
		}
	}
	return nil
}

type exportIn struct {
	Rows int `json:"rows" in:"query" validate:"min=0,max=100000" doc:"rows"`
}

func TestMCPExportReturnsCappedCSV(t *testing.T) {
	st := storetest.Open(t)
	svc := capability.New(st, capability.Config{BaseURL: "http://x"}, slog.New(slog.DiscardHandler))
	export := capability.Define(capability.Capability{Name: "export_things", Method: "GET", Path: "/api/v1/exports/things", Scope: capability.MentionsRead, CSV: true, NoProject: true},
		func(ctx context.Context, p *capability.Principal, in *exportIn) (*fakeExport, error) {
			return &fakeExport{n: in.Rows}, nil
		})
	srv := NewMCPServer(svc, MCPOptions{
		Capabilities: []*capability.Capability{export},
		MaxCSVBytes:  1000,
		Principal: func(context.Context) (*capability.Principal, error) {
			return &capability.Principal{Kind: capability.KindKey, Scopes: []string{capability.MentionsRead}}, nil
		},
	})
	sst, cst := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(), cst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(rows int) mcpCSV {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "export_things", Arguments: map[string]any{"rows": rows}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %v", err, res)
		}
		var env struct{ Data mcpCSV }
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &env)
		return env.Data
	}
	small := call(3)
	if small.Truncated || small.Rows != 3 || !strings.HasPrefix(small.CSV, "id,text\n") || small.Filename != "mentions.csv" {
		t.Errorf("small export: %+v", small)
	}
	big := call(500)
	if !big.Truncated || len(big.CSV) > 1000 || big.Rows == 0 || !strings.HasSuffix(big.CSV, "\"\n") || big.Note == "" {
		t.Errorf("big export: rows %d, %d bytes, truncated %v, ends %q", big.Rows, len(big.CSV), big.Truncated, big.CSV[max(0, len(big.CSV)-20):])
	}
	if got := strings.Count(big.CSV, "line one"); got != big.Rows {
		t.Errorf("%d rows counted, %d in the text", big.Rows, got)
	}
}
