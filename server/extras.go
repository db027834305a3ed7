package server

// mountAgents mounts /mcp, /api/v1/openapi.json and /docs (see mcp.go, docs.go).
func (s *Server) mountAgents() {}

// mountUI mounts the dashboard and the public pages (see package ui).
func (s *Server) mountUI() {}
