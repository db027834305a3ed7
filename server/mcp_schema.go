package server

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	"earshot/capability"
)

// JSON Schemas derived from the catalogue. The MCP tools' input schemas and
// the OpenAPI document's parameters and bodies come from the same functions,
// so an agent and a REST client see the same rules the decoder enforces.

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	nullStringType = reflect.TypeFor[capability.NullString]()
	timeType       = reflect.TypeFor[time.Time]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
	streamerType   = reflect.TypeFor[Streamer]()
)

// inputSchema is the JSON Schema of the fields accepted by c whose location
// passes keep (all fields when keep is nil): an object with
// additionalProperties false, as the decoder refuses unknown keys.
func inputSchema(fields []capability.Field, keep func(capability.Field) bool) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range fields {
		if keep != nil && !keep(f) {
			continue
		}
		props[f.Name] = fieldSchema(f)
		if f.Required {
			required = append(required, f.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// fieldSchema is the schema of one input field, with its validation rules.
func fieldSchema(f capability.Field) map[string]any {
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var s map[string]any
	switch {
	case t == nullStringType:
		s = map[string]any{"type": []any{"string", "null"}}
		applyScalarRules(s, f, reflect.String)
	case t == rawMessageType, t.Kind() == reflect.Map:
		s = map[string]any{"type": "object"}
	case t.Kind() == reflect.Struct:
		s = nestedInputSchema(t)
	case t.Kind() == reflect.Slice:
		items := scalarSchema(t.Elem())
		if t.Elem().Kind() == reflect.Struct {
			items = nestedInputSchema(t.Elem())
		} else {
			applyScalarRules(items, f, t.Elem().Kind())
		}
		s = map[string]any{"type": "array", "items": items}
		if f.MaxItems > 0 {
			s["maxItems"] = f.MaxItems
		}
	default:
		s = scalarSchema(t)
		applyScalarRules(s, f, t.Kind())
	}
	if typ, ok := s["type"].(string); ok && f.Nullable {
		s["type"] = []any{typ, "null"} // null is accepted and means absent
		if enum, ok := s["enum"].([]any); ok {
			s["enum"] = append(enum, nil)
		}
	}
	if f.Doc != "" {
		s["description"] = f.Doc
	}
	if f.Default != "" {
		if v, ok := typedValue(f.Default, t.Kind()); ok {
			s["default"] = v
		}
	}
	return s
}

func scalarSchema(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	}
	return map[string]any{}
}

// applyScalarRules adds the string or number rules of f to s (the field
// itself, or each item of an array field).
func applyScalarRules(s map[string]any, f capability.Field, k reflect.Kind) {
	switch k {
	case reflect.String:
		if f.MaxLen > 0 {
			s["maxLength"] = f.MaxLen
		}
		if f.MinLen > 0 || f.NotBlank {
			s["minLength"] = max(f.MinLen, 1)
		}
		if f.NotBlank {
			s["pattern"] = `\S` // more than white space
		}
		if f.Format != "" {
			s["format"] = f.Format
		}
		if len(f.Enum) > 0 {
			s["enum"] = stringsToAny(f.Enum)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if f.Min != nil {
			s["minimum"] = *f.Min
		}
		if f.Max != nil {
			s["maximum"] = *f.Max
		}
		if len(f.Enum) > 0 {
			var vals []any
			for _, e := range f.Enum {
				if n, err := strconv.Atoi(e); err == nil {
					vals = append(vals, n)
				}
			}
			s["enum"] = vals
		}
	}
}

func stringsToAny(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}

func typedValue(s string, k reflect.Kind) (any, bool) {
	switch k {
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.Atoi(s)
		return n, err == nil
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		return b, err == nil
	}
	return s, true
}

// nestedInputSchema describes a struct-valued input field (e.g. saved-view
// filters) from the same json/validate/doc tags the catalogue reads.
func nestedInputSchema(t reflect.Type) map[string]any {
	fields, err := capability.InputFields(t)
	if err != nil {
		panic(err) // the catalogue parsed the same tags when it was built
	}
	return inputSchema(fields, nil)
}

// outputSchema reflects an output type the way encoding/json writes it:
// structs by their json tags, pointers nullable, slices arrays,
// json.RawMessage objects, times strings.
func outputSchema(t reflect.Type) map[string]any {
	return outSchema(t, map[reflect.Type]bool{})
}

func outSchema(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	if t.Kind() == reflect.Pointer {
		return nullable(outSchema(t.Elem(), seen))
	}
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawMessageType:
		return map[string]any{"type": "object"}
	case t == nullStringType:
		return map[string]any{"type": []any{"string", "null"}}
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType):
		return map[string]any{} // encodes itself: any JSON value
	}
	switch t.Kind() {
	case reflect.Struct:
		if seen[t] {
			return map[string]any{"type": "object"}
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		var required []string
		addStructFields(t, seen, props, &required)
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": outSchema(t.Elem(), seen)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": outSchema(t.Elem(), seen)}
	case reflect.Interface:
		return map[string]any{}
	}
	return scalarSchema(t)
}

func addStructFields(t reflect.Type, seen map[reflect.Type]bool, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				addStructFields(et, seen, props, required)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		s := outSchema(sf.Type, seen)
		if strings.Contains(opts, "string") {
			s = map[string]any{"type": "string"}
		}
		if d := sf.Tag.Get("doc"); d != "" {
			s["description"] = d
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}

// nullable widens a schema to also accept null.
func nullable(s map[string]any) map[string]any {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
		if e, ok := s["enum"].([]any); ok {
			s["enum"] = append(e, nil)
		}
	case []any:
		for _, x := range t {
			if x == "null" {
				return s
			}
		}
		s["type"] = append(t, "null")
	}
	return s
}

// isStreamed reports whether c answers with a body it writes itself (CSV).
func isStreamed(c *capability.Capability) bool {
	if c.CSV {
		return true
	}
	return c.Out != nil && (c.Out.Implements(streamerType) || reflect.PointerTo(c.Out).Implements(streamerType))
}
