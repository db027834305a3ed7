package store_test

import (
	"reflect"
	"strconv"
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
		store.Member{}, store.APIKey{}, store.Project{}, store.User{}, store.Invitation{}, store.Event{}, store.AlertDelivery{}}
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

// fill sets every exported field of the struct v points to to a value that
// differs per field, so a field a conversion forgets shows up.
func fill(v reflect.Value, n *int) {
	for i := 0; i < v.NumField(); i++ {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		fillValue(v.Field(i), n)
	}
}

func fillValue(f reflect.Value, n *int) {
	*n++
	switch f.Kind() {
	case reflect.String:
		f.SetString("v" + strconv.Itoa(*n))
	case reflect.Int, reflect.Int64:
		f.SetInt(int64(*n))
	case reflect.Float64:
		f.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		f.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(f.Type().Elem())
		if p.Elem().Kind() == reflect.Struct {
			fill(p.Elem(), n)
		} else {
			fillValue(p.Elem(), n)
		}
		f.Set(p)
	case reflect.Slice:
		if f.Type().Elem().Kind() == reflect.Uint8 { // json.RawMessage
			f.SetBytes([]byte(`{"k":` + strconv.Itoa(*n) + `}`))
			return
		}
		s := reflect.MakeSlice(f.Type(), 1, 1)
		if e := s.Index(0); e.Kind() == reflect.Struct {
			fill(e, n)
		} else {
			fillValue(e, n)
		}
		f.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(f.Type())
		k, e := reflect.New(f.Type().Key()).Elem(), reflect.New(f.Type().Elem()).Elem()
		fillValue(k, n)
		fillValue(e, n)
		m.SetMapIndex(k, e)
		f.Set(m)
	}
}

// sameByName compares a record's value with a row's: equal scalars, and
// nested structs (a record's and a row's type) field by field by name.
func sameByName(rec, row reflect.Value) bool {
	switch rec.Kind() {
	case reflect.Pointer:
		if rec.IsNil() || row.IsNil() {
			return rec.IsNil() == row.IsNil()
		}
		return sameByName(rec.Elem(), row.Elem())
	case reflect.Struct:
		for i := 0; i < rec.NumField(); i++ {
			f := row.FieldByName(rec.Type().Field(i).Name)
			if !f.IsValid() || !sameByName(rec.Field(i), f) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if rec.Type().Elem().Kind() != reflect.Struct {
			return reflect.DeepEqual(rec.Interface(), row.Interface())
		}
		if rec.Len() != row.Len() || rec.IsNil() != row.IsNil() {
			return false
		}
		for i := 0; i < rec.Len(); i++ {
			if !sameByName(rec.Index(i), row.Index(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(rec.Interface(), row.Interface())
}

// TestRecordsCopyEveryField: each conversion to a public record copies
// every field the record has from the row field of the same name, and
// MentionFromRecord gives back the mention it came from.
func TestRecordsCopyEveryField(t *testing.T) {
	check := func(row any, rec any) {
		t.Helper()
		rv, cv := reflect.ValueOf(row).Elem(), reflect.ValueOf(rec).Elem()
		for i := 0; i < cv.NumField(); i++ {
			name := cv.Type().Field(i).Name
			src := rv.FieldByName(name)
			if !src.IsValid() {
				t.Errorf("%s.%s has no row field of that name: check the mapping by hand", cv.Type(), name)
				continue
			}
			if !sameByName(cv.Field(i), src) {
				t.Errorf("%s.%s = %+v, the row has %+v: the conversion does not copy it", cv.Type(), name, cv.Field(i), src)
			}
		}
	}
	n := 0
	var (
		m  store.Mention
		sp store.Spike
		mo store.Monitor
		g  store.KeywordGroup
		st store.Story
		w  store.Webhook
		d  store.Delivery
		a  store.Alert
		v  store.View
		c  store.Category
		me store.Member
		k  store.APIKey
		ev store.Event
	)
	for _, p := range []any{&m, &sp, &mo, &g, &st, &w, &d, &a, &v, &c, &me, &k, &ev} {
		fill(reflect.ValueOf(p).Elem(), &n)
	}
	check(&m, m.Record())
	check(&sp, sp.Record())
	check(&mo, mo.Record())
	check(&g, g.Record())
	check(&st, st.Record())
	check(&w, w.Record())
	check(&d, d.Record())
	check(&a, a.Record())
	check(&v, v.Record())
	check(&c, c.Record())
	check(&me, me.Record())
	check(&k, k.Record())
	check(&ev, ev.Record())
	if back := store.MentionFromRecord(m.Record()); !reflect.DeepEqual(back, &m) {
		t.Errorf("MentionFromRecord(m.Record()) = %+v, want %+v", back, &m)
	}
}
