package server

import "earshot/ui"

// mountUI mounts the dashboard and the public pages (package ui), a thin
// binding over the same capability service as REST and MCP.
func (s *Server) mountUI() {
	ui.New(s.svc).Mount(s.Router)
}
