package capability

import "context"

// Health is what /healthz reports of the database: each check "ok" or
// what is wrong, and whether all passed.
type Health struct {
	OK bool
	// Degraded: the service answers, but something needs an operator (a
	// full disk: reads work, writes fail with 507 STORAGE_FULL).
	Degraded bool
	Checks   map[string]string // "database", "storage", "migrations"
	Backend  string            // the store's engine: "sqlite" or "postgres"
}

// The migrations check's answers besides "ok": migrations this binary
// knows are not applied yet, or the database has migrations it does not
// know (a newer earshot migrated it).
const (
	MigrationsPending = "pending"
	MigrationsNewer   = "newer than this binary"
)

// Health checks that the database answers and its schema is current.
func (s *Service) Health(ctx context.Context) Health {
	h := Health{OK: true, Checks: map[string]string{}, Backend: s.Store.Backend()}
	if err := s.Store.Ping(ctx); err != nil {
		h.OK = false
		h.Checks["database"] = err.Error()
		return h
	}
	h.Checks["database"] = "ok"
	// "storage" fails from a write refused for lack of space until a
	// write commits again (store.StorageFull).
	h.Checks["storage"] = "ok"
	if _, full := s.Store.StorageFull(); full {
		h.Degraded = true
		h.Checks["storage"] = "full"
	}
	ms, err := s.Store.MigrationStatus(ctx)
	switch {
	case err != nil:
		h.OK = false
		h.Checks["migrations"] = err.Error()
	case len(ms.Unknown) > 0:
		// A newer binary migrated the database under this process (a
		// shared PostgreSQL, or a second serve on the data dir): this one
		// should be replaced, not waited for.
		h.OK = false
		h.Checks["migrations"] = MigrationsNewer
	case len(ms.Pending) > 0:
		h.OK = false
		h.Checks["migrations"] = MigrationsPending
	default:
		h.Checks["migrations"] = "ok"
	}
	return h
}
