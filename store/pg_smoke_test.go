package store_test

import (
	"context"
	"testing"

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
