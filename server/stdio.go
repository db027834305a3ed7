package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/internal/lines"
)

// StdioTransport is the MCP transport of `earshot mcp`: newline-delimited
// JSON-RPC on stdin and stdout, like the SDK's IOTransport, with two
// differences an agent session depends on:
//
//   - A line that is not a JSON-RPC message gets a JSON-RPC error answer
//     (-32700 parse error, -32600 invalid request; JSON-RPC 2.0 §5.1) and the
//     session goes on. The SDK's transport ends the whole session on such a
//     line, and the client sees the process exit.
//   - When stdin ends, requests already read are answered before the session
//     closes (up to DrainTimeout), so `printf '…' | earshot mcp` gets every
//     answer, and a write that was carried out is never left unanswered.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// MaxLineBytes bounds one message; 0 means 16 MiB (the SDK's default).
	MaxLineBytes int
	// DrainTimeout bounds the wait for answers after stdin ends; 0 means 60 s.
	DrainTimeout time.Duration
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		out:      t.Out,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		eof:      make(chan struct{}),
		pending:  map[jsonrpc.ID]bool{},
		drained:  make(chan struct{}, 1),
		drainFor: t.DrainTimeout,
	}
	if c.drainFor == 0 {
		c.drainFor = time.Minute
	}
	limit := t.MaxLineBytes
	if limit == 0 {
		limit = 16 << 20
	}
	c.limit = limit
	go c.readLoop(t.In, limit)
	return c, nil
}

type stdioConn struct {
	out      io.Writer
	writeMu  sync.Mutex
	incoming chan jsonrpc.Message
	closed   chan struct{}
	close    sync.Once
	eof      chan struct{} // closed when stdin has ended
	readErr  error         // why stdin ended; set before eof is closed

	mu       sync.Mutex
	pending  map[jsonrpc.ID]bool // requests read and not yet answered
	drained  chan struct{}       // signalled when pending becomes empty
	drainFor time.Duration
	limit    int // bytes per line
}

func (c *stdioConn) readLoop(in io.Reader, limit int) {
	defer close(c.eof)
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := lines.Read(r, limit)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := c.decode(line, tooLong); msg != nil {
				if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
					c.mu.Lock()
					dup := c.pending[req.ID]
					c.pending[req.ID] = true
					c.mu.Unlock()
					if dup {
						// The SDK would drop a second request with the id
						// of one still running, unanswered (JSON-RPC ids
						// must be unique among pending requests).
						raw, _ := json.Marshal(req.ID.Raw())
						c.writeError(raw, jsonrpc.CodeInvalidRequest, "invalid request: id already in use by a request still running")
						continue
					}
				}
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// decode turns a line into a message, or answers it with a JSON-RPC error
// and returns nil.
func (c *stdioConn) decode(line []byte, tooLong bool) jsonrpc.Message {
	if tooLong {
		c.writeError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message too long: the limit is %d bytes per line", c.limit))
		return nil
	}
	line = bytes.TrimPrefix(bytes.TrimSpace(line), []byte("\ufeff"))
	if !json.Valid(line) {
		c.writeError(nil, jsonrpc.CodeParseError, "parse error: each line must be one JSON-RPC message")
		return nil
	}
	if line[0] == '[' {
		c.writeError(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line")
		return nil
	}
	if e := checkJSONBody(line); e != nil {
		// As on /mcp over HTTP: what encoding/json would silently alter
		// (a lone surrogate, a repeated key, invalid UTF-8) is refused.
		c.writeError(probeID(line), jsonrpc.CodeInvalidRequest, "invalid request: "+e.Message)
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.writeError(probeID(line), jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 request object (jsonrpc \"2.0\", method, and a string or number id)")
		return nil
	}
	return msg
}

// probeID is the id of a message that could not be decoded, when it has a
// valid one (else nil: the answer's id is null).
func probeID(line []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &probe)
	var v any
	if json.Unmarshal(probe.ID, &v) != nil || (v != nil && !isIDValue(v)) {
		return nil
	}
	return probe.ID
}

func isIDValue(v any) bool {
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// writeError writes an error answer; id nil means "id": null.
func (c *stdioConn) writeError(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	c.writeLine(b)
}

func (c *stdioConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// Read implements mcp.Connection. After stdin ends it returns the end only
// once every request read has been answered, or after the drain timeout.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-c.eof:
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	timeout := time.NewTimer(c.drainFor)
	defer timeout.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-c.drained:
		case <-timeout.C:
			return nil, fmt.Errorf("stdin ended with %d requests unanswered after %s", n, c.drainFor)
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, c.readErr
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(b)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		empty := len(c.pending) == 0
		c.mu.Unlock()
		if empty {
			select {
			case c.drained <- struct{}{}:
			default:
			}
		}
	}
	return err
}

// Close implements mcp.Connection. It does not close stdin or stdout.
func (c *stdioConn) Close() error {
	c.close.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection; stdio has no session id.
func (c *stdioConn) SessionID() string { return "" }
