package store_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"earshot/store"
	"earshot/store/storetest"
)

// TestOpenBackend opens the test run's backend, migrates it and reports the
// schema at the latest version.
func TestOpenBackend(t *testing.T) {
	st := storetest.Open(t)
	applied, latest, err := st.SchemaVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if applied != latest || applied == 0 {
		t.Fatalf("schema %d of %d", applied, latest)
	}
	want := "sqlite"
	if storetest.Postgres() {
		want = "postgres"
	}
	if st.Backend() != want {
		t.Fatalf("backend %s, want %s", st.Backend(), want)
	}
}

// A URL whose search_path names a schema nobody created (the new schema
// `earshot migrate` suggests) fails with a message saying so, not with
// a scan error on a NULL.
func TestOpenPostgresMissingSchemaSaysSo(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("PostgreSQL only (EARSHOT_TEST_DATABASE_URL)")
	}
	u, err := url.Parse(os.Getenv(storetest.EnvURL))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", "earshot_no_such_schema_x1")
	u.RawQuery = q.Encode()
	st, err := store.OpenPostgres(context.Background(), u.String())
	if err == nil {
		st.Close()
		t.Fatal("opened a database whose search_path names no existing schema")
	}
	if !strings.Contains(err.Error(), "earshot_no_such_schema_x1") || !strings.Contains(err.Error(), "CREATE SCHEMA") {
		t.Fatalf("error %q does not name the schema and say how to create it", err)
	}
}
