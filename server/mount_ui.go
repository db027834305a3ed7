package server

// mountUI mounts the dashboard and the public pages.
func (s *Server) mountUI() {}
