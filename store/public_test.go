package store_test

import (
	"reflect"
	"testing"

	"earshot/store"
)

// TestRowsDefineNoJSON: rows carry no JSON names; the public format is the
// api records and store/public.go the one mapping to them. The only tag
// left is json:"-" on secrets, so a row encoded by mistake (a log line)
// still leaves them out.
func TestRowsDefineNoJSON(t *testing.T) {
	rows := []any{store.Mention{}, store.Spike{}, store.SpikeMentionsQuery{}, store.Monitor{}, store.SourceStatus{},
		store.KeywordGroup{}, store.Story{}, store.Webhook{}, store.Delivery{}, store.Alert{}, store.View{}, store.Category{},
		store.Member{}, store.APIKey{}, store.Project{}, store.User{}, store.Invitation{}, store.Event{}}
	for _, r := range rows {
		rt := reflect.TypeOf(r)
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			if tag, ok := f.Tag.Lookup("json"); ok && tag != "-" {
				t.Errorf("store.%s.%s has json:%q: public names belong to its api record", rt.Name(), f.Name, tag)
			}
		}
	}
	for _, secret := range []struct {
		row   any
		field string
	}{{store.User{}, "PasswordHash"}, {store.Webhook{}, "Secret"}, {store.Webhook{}, "PreviousSecret"}, {store.Alert{}, "Secret"}} {
		f, _ := reflect.TypeOf(secret.row).FieldByName(secret.field)
		if f.Tag.Get("json") != "-" {
			t.Errorf("%T.%s must be json:\"-\"", secret.row, secret.field)
		}
	}
}
