package classify

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// lineIn is one input line of RunJSONLines.
type lineIn struct {
	ID       json.RawMessage `json:"id"`
	Text     *string         `json:"text"`
	Source   string          `json:"source"`
	Keywords []string        `json:"keywords"`
}

// lineOut is one output line; Error is set instead of the classification
// when the input line could not be classified.
type lineOut struct {
	ID         json.RawMessage `json:"id"`
	Category   string          `json:"category,omitempty"`
	Sentiment  string          `json:"sentiment,omitempty"`
	Urgency    *int            `json:"urgency,omitempty"`
	Summary    *string         `json:"ai_summary,omitempty"`
	IsRelevant *bool           `json:"is_relevant,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// maxLine bounds one input line (16 MiB).
const maxLine = 16 << 20

// RunJSONLines classifies JSON lines {"id","text","source"?,"keywords"?}
// from r and writes one line per input to w, in order:
// {"id","category","sentiment","urgency","ai_summary","is_relevant"}. A line
// that cannot be read or classified gets {"id","error"} and processing
// goes on; blank lines are skipped. It returns on the end of r, on a write
// error or when ctx ends.
func RunJSONLines(ctx context.Context, c Classifier, r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	lineNo := 0
	for {
		if err := ctx.Err(); err != nil {
			bw.Flush()
			return err
		}
		line, tooLong, err := readLine(br)
		if err == io.EOF && line == "" && !tooLong {
			return bw.Flush()
		}
		if err != nil && err != io.EOF {
			bw.Flush()
			return fmt.Errorf("read input: %w", err)
		}
		lineNo++
		out := classifyLine(ctx, c, line, tooLong, lineNo)
		if out != nil {
			if e := enc.Encode(out); e != nil {
				return fmt.Errorf("write output: %w", e)
			}
			// Flush per line so a pipeline sees results as they come.
			if e := bw.Flush(); e != nil {
				return fmt.Errorf("write output: %w", e)
			}
		}
		if err == io.EOF {
			return bw.Flush()
		}
	}
}

// readLine reads one line without its newline. A line over maxLine is
// consumed whole and reported as tooLong.
func readLine(br *bufio.Reader) (string, bool, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxLine {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return strings.TrimRight(string(buf), "\r\n"), tooLong, err
	}
}

func classifyLine(ctx context.Context, c Classifier, line string, tooLong bool, lineNo int) *lineOut {
	if tooLong {
		return &lineOut{ID: json.RawMessage("null"), Error: fmt.Sprintf("line %d: longer than %d bytes", lineNo, maxLine)}
	}
	if strings.TrimSpace(line) == "" {
		return nil
	}
	var in lineIn
	dec := json.NewDecoder(strings.NewReader(line))
	if err := dec.Decode(&in); err != nil {
		return &lineOut{ID: json.RawMessage("null"), Error: fmt.Sprintf("line %d: invalid JSON: %v", lineNo, err)}
	}
	id := in.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if in.Text == nil {
		return &lineOut{ID: id, Error: fmt.Sprintf("line %d: missing \"text\"", lineNo)}
	}
	res, err := c.Classify(ctx, Input{Text: *in.Text, Source: in.Source, Keywords: in.Keywords})
	if err != nil {
		return &lineOut{ID: id, Error: fmt.Sprintf("line %d: %v", lineNo, err)}
	}
	return &lineOut{ID: id, Category: res.Category, Sentiment: res.Sentiment, Urgency: &res.Urgency,
		Summary: &res.Summary, IsRelevant: &res.IsRelevant}
}
