package capability

// Rate-limit cost (README, "Security: the web face", M3): every binding —
// REST, /mcp and the dashboard — takes tokens for a call from the one
// bucket of the credential that makes it (the API key, or the session: a
// dashboard cookie and the same session's bearer token share it). Most operations take one token. Those that scan many
// mentions take more, so a client cannot run a burst of them at the price
// of a burst of list calls: their price is about how much more work one
// call is than a page of a list.
const (
	// CostExport: a CSV export streams up to the whole project (100,000
	// rows), a few hundred list pages of work.
	CostExport = 20
	// CostPreview: a monitor preview matches a draft against up to 50,000
	// stored mentions.
	CostPreview = 10
	// CostAggregate: statistics over a period (counts by day, category,
	// source; share of voice; the public page's preview).
	CostAggregate = 5
)

// Cost is how many tokens of the credential's rate-limit bucket one call
// of c takes (at least 1).
func (c *Capability) Cost() int {
	switch c.Name {
	case "export_mentions":
		return CostExport
	case "preview_monitor":
		return CostPreview
	case "get_mention_stats", "get_share_of_voice", "preview_public_page", "get_brief":
		return CostAggregate
	}
	return 1
}
