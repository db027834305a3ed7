package capability

func (s *Service) mentionCaps() []*Capability { return nil }
