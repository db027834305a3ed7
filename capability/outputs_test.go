package capability_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestOutputsAreNotStoreRows: what a capability returns (REST data, MCP
// result, OpenAPI output schema) is made of public records (package api)
// and the capability's own output types, never of a storage row, so
// renaming a column cannot change the public format unnoticed. A new
// capability that returns a row fails here.
func TestOutputsAreNotStoreRows(t *testing.T) {
	e := newEnv(t)
	found := map[string][]string{}
	for _, c := range e.svc.Capabilities() {
		if c.CSV {
			continue // streams CSV, not JSON
		}
		walkTypes(c.Out, map[reflect.Type]bool{}, func(t reflect.Type) {
			if strings.HasSuffix(t.PkgPath(), "/store") || t.PkgPath() == "store" {
				found[t.Name()] = append(found[t.Name()], c.Name)
			}
		})
	}
	var names []string
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Errorf("store.%s is part of the output of %v: return an api record converted from it (store/public.go)", n, found[n])
	}
}

// walkTypes calls visit for every named type reachable from t through
// pointers, slices, maps and the struct fields JSON encodes.
func walkTypes(t reflect.Type, seen map[reflect.Type]bool, visit func(reflect.Type)) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	if t.Name() != "" {
		visit(t)
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		walkTypes(t.Elem(), seen, visit)
	case reflect.Map:
		walkTypes(t.Key(), seen, visit)
		walkTypes(t.Elem(), seen, visit)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); (f.IsExported() || f.Anonymous) && f.Tag.Get("json") != "-" {
				walkTypes(f.Type, seen, visit)
			}
		}
	}
}
