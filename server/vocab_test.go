package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/capability"
	"earshot/store"
	"earshot/vocab"
)

// vocabularyOf names the vocabulary an enum copies: the one it shares at
// least two values with ("" when none). An enum that copies a vocabulary
// must be exactly one of vocab's lists, in its order; a single shared word
// (a spike's kind "negative") is a different vocabulary.
func vocabularyOf(enum []string) (string, bool) {
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range vocab.Lists {
			if !yield(n) {
				return
			}
		}
	})
	shared := ""
	for _, n := range names {
		if slices.Equal(enum, vocab.Lists[n]) {
			return n, true
		}
		common := 0
		for _, v := range enum {
			if slices.Contains(vocab.Lists[n], v) {
				common++
			}
		}
		if common >= 2 && shared == "" {
			shared = n
		}
	}
	return shared, false
}

// fieldVocabulary is the vocabulary an input field of this name must use.
var fieldVocabulary = map[string]string{
	"source": "sources", "sources": "sources", "category": "categories", "sentiment": "sentiments",
	"public_visibility": "public_visibilities", "query_mode": "query_modes",
}

// TestCatalogueEnumsAreTheVocabulary checks every validation tag of the
// catalogue: an enum that lists sources, categories, sentiments, statuses,
// date presets (…) is the vocabulary itself, not a copy that can drift (the
// stories filter once lacked bluesky and mastodon).
func TestCatalogueEnumsAreTheVocabulary(t *testing.T) {
	e := newAgentsEnv(t)
	seen := map[string]int{}
	var walk func(where string, fields []capability.Field)
	walk = func(where string, fields []capability.Field) {
		for _, f := range fields {
			name := where + "." + f.Name
			if len(f.Enum) > 0 {
				if v, exact := vocabularyOf(f.Enum); v != "" && !exact {
					t.Errorf("%s: enum %v copies vocabulary %s (%v): write enum=@%s", name, f.Enum, v, vocab.Lists[v], v)
				} else if exact {
					seen[v]++
				}
			}
			if want, ok := fieldVocabulary[f.Name]; ok && !slices.Equal(f.Enum, vocab.Lists[want]) {
				t.Errorf("%s: enum %v, want vocabulary %s", name, f.Enum, want)
			}
			if f.Name == "date_preset" {
				if !slices.Equal(f.Enum, vocab.DatePresets) && !slices.Equal(f.Enum, vocab.BoundedDatePresets) {
					t.Errorf("%s: enum %v is not a date preset vocabulary", name, f.Enum)
				}
			}
			if f.Name == "sources" && f.MaxItems != len(vocab.Sources) {
				t.Errorf("%s: maxitems %d, want one per source (%d)", name, f.MaxItems, len(vocab.Sources))
			}
			if f.Name == "min_urgency" && f.Default != "" && f.Default != fmt.Sprint(vocab.UrgentThreshold) {
				t.Errorf("%s: default %s, want the urgent threshold %d", name, f.Default, vocab.UrgentThreshold)
			}
			if st, ok := structOf(f.Type); ok {
				nested, err := capability.InputFields(st)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				walk(name, nested)
			}
		}
	}
	for _, c := range e.svc.Capabilities() {
		walk(c.Name, c.Fields)
		checkRawTags(t, c.Name, c.In, map[reflect.Type]bool{})
	}
	for _, v := range []string{"sources", "categories", "sentiments", "statuses", "date_presets", "bounded_date_presets", "public_visibilities", "query_modes"} {
		if seen[v] == 0 {
			t.Errorf("no field uses vocabulary %s (the walk missed it, or it is dead)", v)
		}
	}
	// The categories every project starts with are the vocabulary's.
	var seeded []string
	for _, c := range store.DefaultCategories {
		seeded = append(seeded, c.Category)
	}
	if !slices.Equal(seeded, vocab.Categories) {
		t.Errorf("store.DefaultCategories = %v, want %v", seeded, vocab.Categories)
	}
}

// checkRawTags reads the validation tags themselves: an enum that lists a
// vocabulary's values must name it (enum=@sources), even while the copy
// still agrees, so the next platform or category needs no second edit.
func checkRawTags(t *testing.T, where string, typ reflect.Type, seen map[reflect.Type]bool) {
	typ, ok := structOf(typ)
	if !ok || seen[typ] {
		return
	}
	seen[typ] = true
	for i := range typ.NumField() {
		sf := typ.Field(i)
		name := where + "." + strings.Split(sf.Tag.Get("json"), ",")[0]
		for _, rule := range strings.Split(sf.Tag.Get("validate"), ",") {
			values, ok := strings.CutPrefix(rule, "enum=")
			if !ok || strings.HasPrefix(values, "@") {
				continue
			}
			enum := strings.Split(values, "|")
			if v, _ := vocabularyOf(enum); v != "" {
				t.Errorf("%s (%s): validate tag lists %q, a copy of vocabulary %s: write enum=@%s", name, typ, values, v, v)
			}
		}
		checkRawTags(t, name, sf.Type, seen)
	}
}

func structOf(t reflect.Type) (reflect.Type, bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t, t.Kind() == reflect.Struct && t != reflect.TypeFor[capability.NullString]()
}

// enums collects every string enum of a JSON schema document, by path.
func enums(path string, v any, out map[string][]string) {
	switch x := v.(type) {
	case map[string]any:
		if e, ok := x["enum"].([]any); ok {
			var vals []string
			for _, s := range e {
				if s, ok := s.(string); ok { // a nullable enum adds null
					vals = append(vals, s)
				}
			}
			if len(vals) > 0 {
				out[path] = vals
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			enums(path+"/"+k, x[k], out)
		}
	case []any:
		for i, y := range x {
			enums(fmt.Sprintf("%s/%d", path, i), y, out)
		}
	}
}

// TestOpenAPIAndToolEnumsAreTheVocabulary checks the published schemas: every
// enum of the OpenAPI document and of the MCP tools' input schemas that
// lists a vocabulary's values is that vocabulary.
func TestOpenAPIAndToolEnumsAreTheVocabulary(t *testing.T) {
	e := newAgentsEnv(t)
	res, err := http.Get(e.http.URL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	err = json.NewDecoder(res.Body).Decode(&doc)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]any{"openapi": doc}
	tools, err := e.inMemory(e.key).ListTools(context.Background(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var s any
		json.Unmarshal(b, &s)
		docs["mcp:"+tool.Name] = s
	}
	seen := map[string]map[string]bool{} // vocabulary → surfaces
	for where, d := range docs {
		found := map[string][]string{}
		enums(where, d, found)
		for path, vals := range found {
			v, exact := vocabularyOf(vals)
			switch {
			case v != "" && !exact:
				t.Errorf("%s: enum %v copies vocabulary %s (%v)", path, vals, v, vocab.Lists[v])
			case exact:
				surface, _, _ := strings.Cut(where, ":")
				if seen[v] == nil {
					seen[v] = map[string]bool{}
				}
				seen[v][surface] = true
			}
		}
	}
	for _, v := range []string{"sources", "categories", "sentiments", "statuses", "date_presets"} {
		if !seen[v]["openapi"] || !seen[v]["mcp"] {
			t.Errorf("vocabulary %s: found in %v, want both the OpenAPI document and the MCP tools", v, seen[v])
		}
	}
}
