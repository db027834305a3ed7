// Package capability is the catalogue of every operation Earshot offers.
// Each operation is declared once — name, route, scope, typed input with its
// validation rules in struct tags, and the function that does the work — and
// REST, MCP, OpenAPI, the docs and the dashboard are bindings derived from it.
package capability

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"earshot/vocab"
)

// Scopes, as the spec names them.
const (
	ProjectsRead  = "projects:read"
	ProjectsWrite = "projects:write"
	MonitorsRead  = "monitors:read"
	MonitorsWrite = "monitors:write"
	MentionsRead  = "mentions:read"
	MentionsWrite = "mentions:write"
	AlertsWrite   = "alerts:write"
	UsageRead     = "usage:read"
	WebhooksWrite = "webhooks:write"
	APIVersion    = "2026-09-02"
	maxIdemKeyLen = 128
	minIdemKeyLen = 8
)

// AllScopes lists the nine scopes.
var AllScopes = []string{ProjectsRead, ProjectsWrite, MonitorsRead, MonitorsWrite, MentionsRead, MentionsWrite, AlertsWrite, UsageRead, WebhooksWrite}

// RoleScopes gives each project role its scopes.
var RoleScopes = map[string][]string{
	"owner":  AllScopes,
	"editor": {ProjectsRead, MonitorsRead, MonitorsWrite, MentionsRead, MentionsWrite, AlertsWrite, UsageRead, WebhooksWrite},
	"viewer": {ProjectsRead, MonitorsRead, MentionsRead, UsageRead},
}

// Capability is one operation of the catalogue.
type Capability struct {
	Name        string // snake_case; the MCP tool name and OpenAPI operationId
	Title       string // short human title
	Description string // tells a person or an agent when to use it
	Group       string // resource family, for docs
	Method      string
	Path        string // httprouter pattern, e.g. /api/v1/monitors/:id
	Scope       string
	Write       bool // changes state; accepts an idempotency key
	Destructive bool
	Idempotent  bool // repeating it has no further effect
	SessionOnly bool // refused to API keys
	NoProject   bool // does not need a current project
	CSV         bool // REST answers text/csv instead of the JSON envelope
	// SessionOp marks a session operation (sessions.go): it makes or ends
	// the credential the others run under, so REST and the dashboard bind
	// it but it is no MCP tool, CLI call or dashboard form action.
	SessionOp bool
	// Public: no credential is needed (logging in); the function gets a
	// nil principal.
	Public bool
	// Secrets names the fields of data that carry a freshly generated
	// secret (an API key, a password, a signing secret). They are shown
	// once: the copy kept for idempotent replay holds null instead, so a
	// replay answers the same record with the secret null. Each must be a
	// pointer field of Out, so the response schema allows null.
	Secrets []string

	In     reflect.Type // struct type of the input
	Out    reflect.Type // struct type of data
	Fields []Field

	run func(ctx context.Context, p *Principal, in any) (any, error)
}

// Field is one input field, from the input struct's tags:
//
//	json:"name"  in:"path|query|body"  validate:"required,nullable,maxlen=80,enum=a|b,min=0,max=100,maxitems=20,format=uuid"  default:"…"  doc:"…"
//
// enum=@name takes the values of a list of package vocab (enum=@sources); a
// list field with such an enum and no maxitems holds at most as many items
// as the vocabulary has values.
type Field struct {
	Name     string
	In       string
	Doc      string
	Type     reflect.Type
	index    []int
	Required bool
	MaxLen   int
	MinLen   int
	Min, Max *int
	MaxItems int
	Enum     []string
	Format   string // uuid, uri, date-time, email
	Default  string
	// Nullable: null is accepted and means the same as leaving the field
	// out (rule "nullable", for pointer fields the spec marks nullable).
	Nullable bool
	// NotBlank: a free-text string (or each string of a list) that is
	// required or has a minimum length must hold more than white space.
	NotBlank bool
	// def is Default parsed into the field's type (invalid when there is
	// none): what the decoder gives a field the request left out.
	def reflect.Value
	// nested: the fields of a struct-valued field (behind pointers, or a
	// list's elements), e.g. saved-view filters. Parsed once with the
	// capability, so decoding and validating a request reads no tags.
	nested []Field
}

// InputFields returns the fields of an input struct (or of a struct-valued
// field, e.g. saved-view filters) with the rules of their tags.
func InputFields(t reflect.Type) ([]Field, error) { return parseFields(t, "") }

// Define declares a capability with a typed function.
func Define[In, Out any](c Capability, fn func(ctx context.Context, p *Principal, in *In) (*Out, error)) *Capability {
	c.In = reflect.TypeFor[In]()
	c.Out = reflect.TypeFor[Out]()
	fields, err := parseFields(c.In, "")
	if err != nil {
		panic(fmt.Sprintf("capability %s: %v", c.Name, err))
	}
	for _, f := range fields {
		if f.In == "path" && !strings.Contains(c.Path, ":"+f.Name) {
			panic(fmt.Sprintf("capability %s: path field %s not in %s", c.Name, f.Name, c.Path))
		}
	}
	c.Fields = fields
	for _, name := range c.Secrets {
		if err := checkSecretField(c.Out, name); err != nil {
			panic(fmt.Sprintf("capability %s: secret %s: %v", c.Name, name, err))
		}
	}
	c.run = func(ctx context.Context, p *Principal, in any) (any, error) {
		out, err := fn(ctx, p, in.(*In))
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return &c
}

// secretReplayDoc is how the response schema describes a secret field.
const secretReplayDoc = "null in an idempotent replay: the secret is shown once and not stored."

// checkSecretField checks that out (a struct, possibly embedding others)
// has a json field name that can be null and says when it is.
func checkSecretField(out reflect.Type, name string) error {
	sf, ok := jsonField(out, name)
	switch {
	case !ok:
		return fmt.Errorf("no such field in %s", out)
	case sf.Type.Kind() != reflect.Pointer:
		return fmt.Errorf("must be a pointer, so null is a valid value")
	case !strings.Contains(sf.Tag.Get("doc"), secretReplayDoc):
		return fmt.Errorf("its doc must say %q", secretReplayDoc)
	}
	return nil
}

// jsonField finds the struct field encoding/json writes under name.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := strings.Split(sf.Tag.Get("json"), ",")[0]
		if sf.Anonymous && tag == "" {
			if f, ok := jsonField(sf.Type, name); ok {
				return f, true
			}
			continue
		}
		if sf.IsExported() && tag == name {
			return sf, true
		}
	}
	return reflect.StructField{}, false
}

// Default returns the value the decoder gives the top-level field name when
// a request leaves it out: its default tag as the field's type, behind no
// pointer (an int for *int). ok is false when the field has no default.
func (c *Capability) Default(name string) (v any, ok bool) {
	for _, f := range c.Fields {
		if f.Name == name && f.def.IsValid() {
			d := f.def
			for d.Kind() == reflect.Pointer {
				d = d.Elem()
			}
			return d.Interface(), true
		}
	}
	return nil, false
}

// Field returns the top-level input field name (its rules, e.g. the
// values an enum allows).
func (c *Capability) Field(name string) (Field, bool) {
	for _, f := range c.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// NewInput returns a pointer to a zero input struct.
func (c *Capability) NewInput() any { return reflect.New(c.In).Interface() }

func parseFields(t reflect.Type, defaultIn string) ([]Field, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("input %s is not a struct", t)
	}
	var out []Field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			// An embedded struct contributes its fields (shared filter sets).
			inner, err := parseFields(sf.Type, defaultIn)
			if err != nil {
				return nil, err
			}
			for _, f := range inner {
				f.index = append([]int{i}, f.index...)
				out = append(out, f)
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		name := strings.Split(sf.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		f := Field{Name: name, In: sf.Tag.Get("in"), Doc: sf.Tag.Get("doc"), Type: sf.Type, index: sf.Index, Default: sf.Tag.Get("default")}
		if f.In == "" {
			f.In = "body"
		}
		if defaultIn != "" {
			f.In = defaultIn
		}
		fromVocab := false
		for _, rule := range strings.Split(sf.Tag.Get("validate"), ",") {
			k, v, _ := strings.Cut(rule, "=")
			num := func() int {
				n, err := strconv.Atoi(v)
				if err != nil {
					panic(fmt.Sprintf("field %s: bad number in %q", name, rule))
				}
				return n
			}
			switch k {
			case "":
			case "required":
				f.Required = true
			case "nullable":
				if sf.Type.Kind() != reflect.Pointer {
					return nil, fmt.Errorf("field %s: nullable needs a pointer type", name)
				}
				f.Nullable = true
			case "maxlen":
				f.MaxLen = num()
			case "minlen":
				f.MinLen = num()
			case "min":
				n := num()
				f.Min = &n
			case "max":
				n := num()
				f.Max = &n
			case "maxitems":
				f.MaxItems = num()
			case "enum":
				// enum=@name is a list of package vocab (enum=@sources):
				// the shared vocabularies are written once, there.
				if list, ok := strings.CutPrefix(v, "@"); ok {
					values, ok := vocab.Lookup(list)
					if !ok {
						return nil, fmt.Errorf("field %s: no vocabulary %q", name, list)
					}
					f.Enum, fromVocab = slices.Clone(values), true
				} else {
					f.Enum = strings.Split(v, "|")
				}
			case "format":
				f.Format = v
			default:
				return nil, fmt.Errorf("field %s: unknown rule %q", name, rule)
			}
		}
		if f.MaxItems == 0 && fromVocab && isList(sf.Type) {
			// A list of a vocabulary's values (sources) holds each at most
			// once: the vocabulary's length bounds it, and grows with it.
			f.MaxItems = len(f.Enum)
		}
		// A formatted string (uuid, email, password…) has its own rule.
		f.NotBlank = (f.Required || f.MinLen > 0) && len(f.Enum) == 0 && f.Format == "" && isText(f.Type)
		if f.Default != "" {
			def, err := parseDefault(f)
			if err != nil {
				return nil, fmt.Errorf("field %s: default %q: %w", name, f.Default, err)
			}
			f.def = def
		}
		if st, ok := nestedStruct(f.Type); ok {
			nested, err := parseFields(st, "")
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", name, err)
			}
			f.nested = nested
		}
		out = append(out, f)
	}
	return out, nil
}

// Decode fills a new input from raw JSON values keyed by field name
// (MCP arguments, a REST body merged with path and query values). Unknown
// keys are refused; accept limits which fields may come from this source.
func (c *Capability) Decode(values map[string]json.RawMessage, accept func(Field) bool) (any, error) {
	in := c.NewInput()
	v := reflect.ValueOf(in).Elem()
	byName := make(map[string]Field, len(c.Fields))
	for _, f := range c.Fields {
		byName[f.Name] = f
	}
	// In key order, so the same bad request always gets the same first error.
	for _, k := range slices.Sorted(maps.Keys(values)) {
		raw := values[k]
		f, ok := byName[k]
		if !ok || (accept != nil && !accept(f)) {
			return nil, Invalid(k, "unknown field %q", k)
		}
		fv := v.FieldByIndex(f.index)
		if isObject(f.Type) && string(raw) != "null" {
			// A nested object (saved-view filters) is decoded field by
			// field, so an error names the field inside it.
			if err := decodeObject(raw, fv, k, f.nested); err != nil {
				return nil, err
			}
			continue
		}
		if err := decodeStrict(raw, fv.Addr().Interface()); err != nil {
			return nil, Invalid(k, "%s must be %s", k, describeType(f.Type))
		}
		if string(raw) == "null" && !nullable(f.Type) && !f.Nullable {
			return nil, Invalid(k, "%s must not be null", k)
		}
	}
	if err := c.validate(v, values); err != nil {
		return nil, err
	}
	applyDefaults(v, c.Fields, values)
	canonicalUUIDs(v, c.Fields)
	return in, nil
}

// parseDefault reads a field's default tag as a value of its type (a
// string as is, anything else as JSON) and checks it against the field's
// own rules: the documented default is one the field accepts.
func parseDefault(f Field) (reflect.Value, error) {
	base := f.Type
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	raw := f.Default
	if base.Kind() == reflect.String {
		raw = strconv.Quote(raw)
	}
	p := reflect.New(f.Type)
	if err := decodeStrict(json.RawMessage(raw), p.Interface()); err != nil {
		return reflect.Value{}, fmt.Errorf("not %s", describeType(f.Type))
	}
	if err := checkValue(f, p.Elem()); err != nil {
		return reflect.Value{}, err
	}
	return p.Elem(), nil
}

// applyDefaults gives every field the request left out its default tag's
// value, so the documented default (OpenAPI, MCP schemas, docs) is the one
// the code runs with, and the code never repeats it. Each field gets its
// own copy: a pointer default is never shared between requests.
func applyDefaults(v reflect.Value, fields []Field, sent map[string]json.RawMessage) {
	for _, f := range fields {
		if !f.def.IsValid() {
			continue
		}
		if _, ok := sent[f.Name]; ok {
			continue
		}
		fv := v.FieldByIndex(f.index)
		if f.def.Kind() == reflect.Pointer {
			p := reflect.New(f.def.Type().Elem())
			p.Elem().Set(f.def.Elem())
			fv.Set(p)
			continue
		}
		fv.Set(f.def)
	}
}

// canonicalUUIDs lower-cases every valid UUID of the input (also in nested
// filters and lists): UUIDs are case-insensitive, ids are stored lower-case,
// and this is the one place every binding's ids pass through.
func canonicalUUIDs(v reflect.Value, fields []Field) {
	for _, f := range fields {
		lowerUUIDs(v.FieldByIndex(f.index), f)
	}
}

func lowerUUIDs(v reflect.Value, f Field) {
	isUUID := f.Format == "uuid"
	switch {
	case v.Kind() == reflect.Pointer:
		if !v.IsNil() {
			lowerUUIDs(v.Elem(), f)
		}
	case v.Type() == reflect.TypeFor[NullString]():
		if isUUID {
			v.FieldByName("V").SetString(strings.ToLower(v.FieldByName("V").String()))
		}
	case v.Kind() == reflect.String:
		if isUUID && v.CanSet() {
			v.SetString(strings.ToLower(v.String()))
		}
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() != reflect.Uint8:
		for i := 0; i < v.Len(); i++ {
			lowerUUIDs(v.Index(i), f)
		}
	case v.Kind() == reflect.Struct:
		canonicalUUIDs(v, f.nested)
	}
}

// nestedStruct returns the struct type a field holds behind pointers or as
// a list's elements, other than NullString: one with fields of its own.
func nestedStruct(t reflect.Type) (reflect.Type, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice {
		t = t.Elem()
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
	}
	return t, t.Kind() == reflect.Struct && t != reflect.TypeFor[NullString]()
}

// isObject reports whether t (behind pointers) is a struct decoded from a
// JSON object by its own tags.
func isObject(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t != reflect.TypeFor[NullString]()
}

// decodeObject fills v (a struct, or a pointer to one, whose fields are
// fields) from a JSON object, naming the offending field as prefix.field.
func decodeObject(raw json.RawMessage, v reflect.Value, prefix string, fields []Field) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	var obj map[string]json.RawMessage
	if err := decodeStrict(raw, &obj); err != nil || obj == nil {
		return Invalid(prefix, "%s must be an object", prefix)
	}
	byName := make(map[string]Field, len(fields))
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		byName[f.Name] = f
		names = append(names, f.Name)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same error for the same body
	for _, k := range keys {
		param := prefix + "." + k
		f, ok := byName[k]
		if !ok {
			return Invalid(param, "unknown field %q in %s; known fields: %s", k, prefix, strings.Join(names, ", "))
		}
		if err := decodeStrict(obj[k], v.FieldByIndex(f.index).Addr().Interface()); err != nil {
			return Invalid(param, "%s must be %s", param, describeType(f.Type))
		}
	}
	return nil
}

func decodeStrict(raw json.RawMessage, dst any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data")
	}
	return nil
}

func nullable(t reflect.Type) bool {
	if t == reflect.TypeFor[json.RawMessage]() {
		return true
	}
	if t == reflect.TypeFor[NullString]() {
		return true
	}
	return false
}

func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[json.RawMessage](), t.Kind() == reflect.Map:
		return "an object"
	case t == reflect.TypeFor[NullString]():
		return "a string or null"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(describeType(t.Elem()), "a "), "an ") + "s"
	case reflect.Struct:
		return "an object with known fields only"
	}
	return t.String()
}

// validate applies the declared rules. present tells which fields were sent.
func (c *Capability) validate(v reflect.Value, present map[string]json.RawMessage) error {
	for _, f := range c.Fields {
		fv := v.FieldByIndex(f.index)
		raw, sent := present[f.Name]
		if f.Required {
			if !sent || string(raw) == "null" {
				return Invalid(f.Name, "%s is required", f.Name)
			}
			if fv.Kind() == reflect.String && fv.Len() == 0 {
				return Invalid(f.Name, "%s must not be empty", f.Name)
			}
		}
		if !sent {
			continue
		}
		if err := checkValue(f, fv); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(f Field, v reflect.Value) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Type() == reflect.TypeFor[NullString]() {
		ns := v.Interface().(NullString)
		if !ns.Valid {
			return nil
		}
		return checkString(f, f.Name, ns.V)
	}
	switch v.Kind() {
	case reflect.String:
		return checkString(f, f.Name, v.String())
	case reflect.Int, reflect.Int64:
		n := v.Int()
		if f.Min != nil && n < int64(*f.Min) {
			return Invalid(f.Name, "%s must be at least %d", f.Name, *f.Min)
		}
		if f.Max != nil && n > int64(*f.Max) {
			return Invalid(f.Name, "%s must be at most %d", f.Name, *f.Max)
		}
		if len(f.Enum) > 0 && !contains(f.Enum, strconv.FormatInt(n, 10)) {
			return Invalid(f.Name, "%s must be one of %s", f.Name, strings.Join(f.Enum, ", "))
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			return nil
		}
		if f.MaxItems > 0 && v.Len() > f.MaxItems {
			return Invalid(f.Name, "%s must have at most %d items", f.Name, f.MaxItems)
		}
		for i := 0; i < v.Len(); i++ {
			if v.Index(i).Kind() == reflect.String {
				if err := checkString(f, fmt.Sprintf("%s[%d]", f.Name, i), v.Index(i).String()); err != nil {
					return err
				}
			}
		}
	case reflect.Struct:
		return validateStruct(v, f.Name, f.nested)
	}
	return nil
}

// isList reports whether t is a list (behind pointers), not raw JSON.
func isList(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Slice && t != reflect.TypeFor[json.RawMessage]()
}

// isText reports whether t holds free text: a string, a list of strings
// or a NullString, behind pointers.
func isText(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.Kind() == reflect.String || t == reflect.TypeFor[NullString]()
}

func checkString(f Field, param, s string) error {
	if f.NotBlank && strings.TrimSpace(s) == "" {
		return Invalid(param, "%s must not be blank", param)
	}
	n := utf8.RuneCountInString(s)
	if f.MaxLen > 0 && n > f.MaxLen {
		return Invalid(param, "%s must be at most %s", param, characters(f.MaxLen))
	}
	if f.MinLen > 0 && n < f.MinLen {
		return Invalid(param, "%s must be at least %s", param, characters(f.MinLen))
	}
	if len(f.Enum) > 0 && !contains(f.Enum, s) {
		return Invalid(param, "%s must be one of %s", param, strings.Join(f.Enum, ", "))
	}
	if f.Format != "" {
		if err := checkFormat(f.Format, s); err != nil {
			return Invalid(param, "%s %s", param, err.Error())
		}
	}
	return nil
}

// validateStruct validates a nested struct (e.g. saved-view filters) by
// its fields' rules.
func validateStruct(v reflect.Value, prefix string, fields []Field) error {
	for _, f := range fields {
		fv := v.FieldByIndex(f.index)
		if fv.Kind() == reflect.Pointer && fv.IsNil() {
			continue
		}
		if fv.Kind() == reflect.String && fv.Len() == 0 {
			continue
		}
		f.Name = prefix + "." + f.Name
		if err := checkValue(f, fv); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Authorize checks scope, credential kind and project selection.
func (c *Capability) Authorize(p *Principal) error {
	if c.Public {
		return nil
	}
	if p == nil {
		return Unauthorized("missing credentials")
	}
	if c.SessionOnly && p.Kind != KindSession && p.Kind != KindSystem {
		return Forbidden(c.Name + " needs a session credential; API keys cannot call it")
	}
	if c.NoProject && p.Kind == KindSession {
		// A session's own account and its project list belong to the user,
		// not to the project the session picked: the role there (a
		// viewer's read scopes) does not limit them.
		return nil
	}
	if !c.NoProject && p.ProjectID == "" {
		return Invalid("Earshot-Project", "choose a project with the Earshot-Project header; this user belongs to several or none")
	}
	if !p.Has(c.Scope) {
		return Forbidden(fmt.Sprintf("this credential lacks the %s scope", c.Scope))
	}
	return nil
}

// NullString is a string field that distinguishes absent, null and a value.
type NullString struct {
	Set   bool // the field was sent
	Valid bool // not null
	V     string
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *NullString) UnmarshalJSON(b []byte) error {
	n.Set = true
	if string(b) == "null" {
		n.Valid = false
		return nil
	}
	n.Valid = true
	return json.Unmarshal(b, &n.V)
}

// Ptr returns nil for null, else the value.
func (n NullString) Ptr() *string {
	if !n.Valid {
		return nil
	}
	v := n.V
	return &v
}

func characters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return strconv.Itoa(n) + " characters"
}

// recorded is a store call's row as its public record (package api), or
// the call's error: capabilities answer records, never storage rows.
func recorded[R any, T interface{ Record() *R }](row T, err error) (*R, error) {
	if err != nil {
		return nil, err
	}
	return row.Record(), nil
}
