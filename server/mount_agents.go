package server

// mountAgents mounts /mcp, /api/v1/openapi.json and /docs.
func (s *Server) mountAgents() {}
