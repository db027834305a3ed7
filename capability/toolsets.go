package capability

import (
	"fmt"
	"slices"
	"strings"
)

// Toolsets group the catalogue for agents, so a host can load only the
// tools its task needs (EARSHOT_MCP_TOOLSETS, /mcp?toolsets=): every
// tools/list costs the agent's context before its first question.
const (
	ToolsetTriage   = "triage"   // mentions, saved views, notes and tags, the brief
	ToolsetInsights = "insights" // stats, share of voice, spikes, stories, exports
	ToolsetMonitors = "monitors" // monitors, keywords, keyword groups, categories
	ToolsetAlerts   = "alerts"   // alerts, webhooks and their deliveries
	ToolsetAdmin    = "admin"    // projects, members, API keys, usage, the account
)

// Toolsets lists the toolsets in documentation order.
var Toolsets = []string{ToolsetTriage, ToolsetInsights, ToolsetMonitors, ToolsetAlerts, ToolsetAdmin}

// groupToolsets files each resource family under one toolset. A capability
// of a family missing here belongs to none and is caught by a test.
var groupToolsets = map[string]string{
	"mention": ToolsetTriage, "view": ToolsetTriage, "brief": ToolsetTriage, "note": ToolsetTriage, "tag": ToolsetTriage,
	"spike": ToolsetInsights, "story": ToolsetInsights,
	"monitor": ToolsetMonitors, "keyword": ToolsetMonitors, "keyword group": ToolsetMonitors, "category": ToolsetMonitors,
	"alert": ToolsetAlerts, "webhook": ToolsetAlerts, "delivery": ToolsetAlerts,
	"project": ToolsetAdmin, "member": ToolsetAdmin, "api key": ToolsetAdmin, "usage": ToolsetAdmin, "account": ToolsetAdmin,
	"session": ToolsetAdmin,
}

// nameToolsets files the capabilities whose family's toolset does not fit
// them: reports over many mentions, and the public page's settings.
var nameToolsets = map[string]string{
	"get_mention_stats": ToolsetInsights, "get_share_of_voice": ToolsetInsights, "export_mentions": ToolsetInsights,
	"preview_public_page": ToolsetAdmin,
}

// Toolset is the toolset c belongs to ("" when its group has none).
func (c *Capability) Toolset() string {
	if t, ok := nameToolsets[c.Name]; ok {
		return t
	}
	return groupToolsets[c.Group]
}

// ParseToolsets reads a comma-separated toolset list ("triage,monitors");
// "" and "all" mean every toolset (nil). An unknown name is an error that
// lists the known ones.
func ParseToolsets(s string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case name == "":
			continue
		case name == "all":
			return nil, nil
		case !slices.Contains(Toolsets, name):
			return nil, fmt.Errorf("unknown toolset %q: use a comma-separated list of %s, or all", name, strings.Join(Toolsets, ", "))
		case !slices.Contains(out, name):
			out = append(out, name)
		}
	}
	return out, nil
}

// Listable reports whether an agent holding p should see c in its tool
// list: a key never sees session-only tools, and no one sees a tool whose
// scope they lack (calling it would only answer FORBIDDEN). The project is
// not checked: a session may still pick one per call.
func (c *Capability) Listable(p *Principal) bool {
	switch {
	case c.Public || p == nil || p.Kind == KindSystem:
		return true
	case c.SessionOnly && p.Kind != KindSession:
		return false
	case c.NoProject && p.Kind == KindSession:
		return true
	}
	return p.Has(c.Scope)
}
