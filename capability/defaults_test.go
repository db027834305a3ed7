package capability_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"earshot/capability"
)

type defaultsIn struct {
	Limit *int   `json:"limit,omitempty" validate:"min=1,max=100" default:"50"`
	Sort  string `json:"sort,omitempty" validate:"enum=newest|urgency" default:"newest"`
	On    *bool  `json:"on,omitempty" default:"true"`
	Name  string `json:"name,omitempty"`
}

// The decoder gives a left-out field its default tag's value, leaves a sent
// one alone, and never shares a pointer default between requests.
func TestDecodeAppliesDefaultTags(t *testing.T) {
	c := capability.Define(capability.Capability{Name: "defaults", Method: "GET", Path: "/defaults"},
		func(ctx context.Context, p *capability.Principal, in *defaultsIn) (*struct{}, error) { return nil, nil })
	v, err := c.Decode(map[string]json.RawMessage{"name": json.RawMessage(`"x"`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := v.(*defaultsIn)
	if in.Limit == nil || *in.Limit != 50 || in.Sort != "newest" || in.On == nil || !*in.On || in.Name != "x" {
		t.Fatalf("defaults not applied: %+v", in)
	}
	*in.Limit = 7 // a handler changing its input must not change the next request's default
	v, _ = c.Decode(map[string]json.RawMessage{}, nil)
	if got := *v.(*defaultsIn).Limit; got != 50 {
		t.Fatalf("second request's limit = %d, want 50", got)
	}
	v, err = c.Decode(map[string]json.RawMessage{"limit": json.RawMessage(`3`), "sort": json.RawMessage(`"urgency"`), "on": json.RawMessage(`false`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in := v.(*defaultsIn); *in.Limit != 3 || in.Sort != "urgency" || *in.On {
		t.Fatalf("sent values replaced by defaults: %+v", in)
	}
	if d, ok := c.Default("limit"); !ok || d != 50 {
		t.Fatalf("Default(limit) = %v, %v", d, ok)
	}
	if _, ok := c.Default("name"); ok {
		t.Fatal("name has no default")
	}
}

// A default tag the field's own rules refuse is a declaration error.
func TestDefaultTagMustBeValid(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[struct {
			Limit *int `json:"limit" validate:"max=100" default:"500"`
		}](),
		reflect.TypeFor[struct {
			Sort string `json:"sort" validate:"enum=a|b" default:"c"`
		}](),
		reflect.TypeFor[struct {
			On *bool `json:"on" default:"yes"`
		}](),
	} {
		if _, err := capability.InputFields(typ); err == nil {
			t.Errorf("%v: accepted", typ)
		}
	}
}
