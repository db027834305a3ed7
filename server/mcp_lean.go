package server

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/capability"
)

// Lean tool lists: tools/list answers only the tools the caller can run,
// in the toolsets its connection loaded, so an agent does not pay for
// tools it cannot use (a read-only key never sees delete_*, a key never
// sees session-only tools). One server serves every caller; the list is
// filtered per request, and a call to a tool left out of the list is
// refused with the same envelope as any other refusal.

// mcpView is what one connection loads: toolsets (nil: all) and whether
// it asked for read-only tools.
type mcpView struct {
	Toolsets []string
	ReadOnly bool
}

type mcpViewKey struct{}

// withMCPView sets the view of the request in ctx (the HTTP binding's
// ?toolsets= and ?read_only=).
func withMCPView(ctx context.Context, v mcpView) context.Context {
	return context.WithValue(ctx, mcpViewKey{}, v)
}

// view is the request's view: the HTTP request's, else the server's.
func (b *mcpBinding) view(ctx context.Context) mcpView {
	if v, ok := ctx.Value(mcpViewKey{}).(mcpView); ok {
		return v
	}
	return mcpView{Toolsets: b.opts.Toolsets, ReadOnly: b.opts.ReadOnly}
}

// loaded reports whether the view includes c, and if not, why.
func (v mcpView) loaded(c *capability.Capability) (bool, string) {
	if v.ReadOnly && c.Write {
		return false, c.Name + " changes data, and this connection is read-only; connect without read_only (EARSHOT_MCP_READ_ONLY) to use it"
	}
	if v.Toolsets != nil && !slices.Contains(v.Toolsets, c.Toolset()) {
		return false, c.Name + " is in the " + c.Toolset() + " toolset, which this connection did not load (it loaded " +
			strings.Join(v.Toolsets, ", ") + "); add it to EARSHOT_MCP_TOOLSETS or ?toolsets="
	}
	return true, ""
}

// leanList filters tools/list by the caller's credential and view.
func (b *mcpBinding) leanList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		list, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return res, nil
		}
		p, perr := b.opts.Principal(ctx)
		if perr != nil {
			p = nil // unauthenticated lists never reach here over HTTP; stdio re-checks each call
		}
		v := b.view(ctx)
		kept := make([]*mcp.Tool, 0, len(list.Tools))
		for _, t := range list.Tools {
			c := b.byName[t.Name]
			if c == nil {
				continue
			}
			if ok, _ := v.loaded(c); !ok {
				continue
			}
			if p != nil && !c.Listable(p) {
				continue
			}
			kept = append(kept, t)
		}
		out := *list
		out.Tools = kept
		return &out, nil
	}
}
