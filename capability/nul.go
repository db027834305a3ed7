package capability

import (
	"reflect"
	"strings"
)

// PostgreSQL text cannot hold U+0000: a NUL in any string of an input
// (a filter, a name, a keyword) failed the query with a 500 there while
// SQLite stored it. Every binding's input goes through Execute, which
// refuses one with a 400 naming the field, the same on both backends.
// Refusing rather than stripping keeps what is stored equal to what was
// sent (a name "a\x00b" silently becoming "ab" would be a surprise).

// nulField returns the JSON name of the first string field of in that
// holds a NUL ("" when none does).
func nulField(in any) string {
	return nulIn(reflect.ValueOf(in), "")
}

func nulIn(v reflect.Value, name string) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return nulIn(v.Elem(), name)
	case reflect.String:
		if strings.IndexByte(v.String(), 0) >= 0 {
			return orName(name)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return "" // []byte is data (json.RawMessage is checked by its own decoder)
		}
		for i := range v.Len() {
			if f := nulIn(v.Index(i), name); f != "" {
				return f
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if f := nulIn(it.Key(), name); f != "" {
				return f
			}
			if f := nulIn(it.Value(), name); f != "" {
				return f
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			n := jsonName(sf)
			if sf.Anonymous && n == sf.Name {
				n = name // embedded: its fields are the outer object's
			}
			if f := nulIn(v.Field(i), n); f != "" {
				return f
			}
		}
	}
	return ""
}

func jsonName(sf reflect.StructField) string {
	if n, _, _ := strings.Cut(sf.Tag.Get("json"), ","); n != "" && n != "-" {
		return n
	}
	return sf.Name
}

func orName(n string) string {
	if n == "" {
		return "input"
	}
	return n
}
