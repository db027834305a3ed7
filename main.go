// Command earshot is a self-hosted brand-mention monitor in one binary:
// REST API, MCP server, dashboard, collectors, classifier and webhooks.
// The commands live in internal/cli.
package main

import (
	"os"

	"earshot/internal/cli"
)

func main() { os.Exit(cli.Main()) }
