package server

import "earshot/ui"

// mountUI mounts the dashboard and the public pages (package ui), a thin
// binding over the same capability service as REST and MCP. Unknown
// non-API addresses get the dashboard's HTML "Page not found".
func (s *Server) mountUI() {
	u := ui.New(s.svc, ui.Options{Limit: s.limiter.take})
	u.Mount(s.Router)
	u.MountInvites(s.Router)
	u.MountOAuth(s.Router)
	s.pageNotFound = u.NotFound
}
