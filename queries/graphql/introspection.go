package graphql

import (
	"context"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Introspection (GraphQL spec, section 4) over gqlparser's *ast.Schema,
// which already holds the introspection types from its prelude. Written
// here because gqlparser only parses and validates; gqlgen's introspection
// package would pull in its code generator and runtime for ~150 lines.

func str(s string) any {
	if s == "" {
		return nil
	}
	return s
}

type schemaObject struct{ s *ast.Schema }

func (o schemaObject) field(_ context.Context, _ *execution, f *ast.Field, _ map[string]any) (any, error) {
	switch f.Name {
	case "description":
		return str(o.s.Description), nil
	case "types":
		names := make([]string, 0, len(o.s.Types))
		for n := range o.s.Types {
			names = append(names, n)
		}
		slices.Sort(names)
		out := make([]any, len(names))
		for i, n := range names {
			out[i] = typeObject{s: o.s, def: o.s.Types[n]}
		}
		return out, nil
	case "queryType":
		return typeObject{s: o.s, def: o.s.Query}, nil
	case "mutationType":
		if o.s.Mutation == nil {
			return nil, nil
		}
		return typeObject{s: o.s, def: o.s.Mutation}, nil
	case "subscriptionType":
		if o.s.Subscription == nil {
			return nil, nil
		}
		return typeObject{s: o.s, def: o.s.Subscription}, nil
	case "directives":
		names := make([]string, 0, len(o.s.Directives))
		for n := range o.s.Directives {
			names = append(names, n)
		}
		slices.Sort(names)
		out := make([]any, len(names))
		for i, n := range names {
			out[i] = directiveObject{s: o.s, d: o.s.Directives[n]}
		}
		return out, nil
	}
	return nil, nil
}

// typeObject is a __Type: a named definition, or a LIST / NON_NULL
// wrapper (ref set, def nil).
type typeObject struct {
	s   *ast.Schema
	def *ast.Definition
	ref *ast.Type
}

// typeOf returns the __Type of a type reference.
func typeOf(s *ast.Schema, t *ast.Type) any {
	if t == nil {
		return nil
	}
	if t.NonNull || t.Elem != nil {
		return typeObject{s: s, ref: t}
	}
	def := s.Types[t.NamedType]
	if def == nil {
		return nil
	}
	return typeObject{s: s, def: def}
}

func includeDeprecated(args map[string]any) bool {
	v, _ := args["includeDeprecated"].(bool)
	return v
}

func deprecation(dirs ast.DirectiveList) (bool, any) {
	d := dirs.ForName("deprecated")
	if d == nil {
		return false, nil
	}
	reason := "No longer supported"
	if a := d.Arguments.ForName("reason"); a != nil && a.Value != nil {
		reason = a.Value.Raw
	}
	return true, reason
}

func (o typeObject) field(_ context.Context, _ *execution, f *ast.Field, args map[string]any) (any, error) {
	if o.ref != nil {
		switch f.Name {
		case "kind":
			if o.ref.NonNull {
				return "NON_NULL", nil
			}
			return "LIST", nil
		case "ofType":
			if o.ref.NonNull {
				inner := *o.ref
				inner.NonNull = false
				return typeOf(o.s, &inner), nil
			}
			return typeOf(o.s, o.ref.Elem), nil
		}
		return nil, nil
	}
	d := o.def
	switch f.Name {
	case "kind":
		return string(d.Kind), nil
	case "name":
		return d.Name, nil
	case "description":
		return str(d.Description), nil
	case "specifiedByURL":
		if dir := d.Directives.ForName("specifiedBy"); dir != nil {
			if a := dir.Arguments.ForName("url"); a != nil && a.Value != nil {
				return a.Value.Raw, nil
			}
		}
		return nil, nil
	case "isOneOf":
		if d.Kind != ast.InputObject {
			return nil, nil
		}
		return d.Directives.ForName("oneOf") != nil, nil
	case "fields":
		if d.Kind != ast.Object && d.Kind != ast.Interface {
			return nil, nil
		}
		out := []any{}
		for _, fd := range d.Fields {
			if strings.HasPrefix(fd.Name, "__") {
				continue
			}
			if dep, _ := deprecation(fd.Directives); dep && !includeDeprecated(args) {
				continue
			}
			out = append(out, fieldObject{s: o.s, f: fd})
		}
		return out, nil
	case "interfaces":
		if d.Kind != ast.Object && d.Kind != ast.Interface {
			return nil, nil
		}
		out := []any{}
		for _, n := range d.Interfaces {
			out = append(out, typeObject{s: o.s, def: o.s.Types[n]})
		}
		return out, nil
	case "possibleTypes":
		if d.Kind != ast.Interface && d.Kind != ast.Union {
			return nil, nil
		}
		out := []any{}
		for _, p := range o.s.GetPossibleTypes(d) {
			out = append(out, typeObject{s: o.s, def: p})
		}
		return out, nil
	case "enumValues":
		if d.Kind != ast.Enum {
			return nil, nil
		}
		out := []any{}
		for _, ev := range d.EnumValues {
			if dep, _ := deprecation(ev.Directives); dep && !includeDeprecated(args) {
				continue
			}
			out = append(out, enumValueObject{ev})
		}
		return out, nil
	case "inputFields":
		if d.Kind != ast.InputObject {
			return nil, nil
		}
		out := []any{}
		for _, fd := range d.Fields {
			out = append(out, inputValueObject{s: o.s, name: fd.Name, desc: fd.Description, t: fd.Type, def: fd.DefaultValue, dirs: fd.Directives})
		}
		return out, nil
	case "ofType":
		return nil, nil
	}
	return nil, nil
}

type fieldObject struct {
	s *ast.Schema
	f *ast.FieldDefinition
}

func (o fieldObject) field(_ context.Context, _ *execution, f *ast.Field, args map[string]any) (any, error) {
	switch f.Name {
	case "args":
		out := []any{}
		for _, a := range o.f.Arguments {
			if dep, _ := deprecation(a.Directives); dep && !includeDeprecated(args) {
				continue
			}
			out = append(out, inputValueObject{s: o.s, name: a.Name, desc: a.Description, t: a.Type, def: a.DefaultValue, dirs: a.Directives})
		}
		return out, nil
	case "type":
		return typeOf(o.s, o.f.Type), nil
	}
	return memberField(f.Name, o.f.Name, o.f.Description, o.f.Directives), nil
}

type inputValueObject struct {
	s          *ast.Schema
	name, desc string
	t          *ast.Type
	def        *ast.Value
	dirs       ast.DirectiveList
}

func (o inputValueObject) field(_ context.Context, _ *execution, f *ast.Field, _ map[string]any) (any, error) {
	switch f.Name {
	case "type":
		return typeOf(o.s, o.t), nil
	case "defaultValue":
		if o.def == nil {
			return nil, nil
		}
		return o.def.String(), nil
	}
	return memberField(f.Name, o.name, o.desc, o.dirs), nil
}

type enumValueObject struct{ v *ast.EnumValueDefinition }

func (o enumValueObject) field(_ context.Context, _ *execution, f *ast.Field, _ map[string]any) (any, error) {
	return memberField(f.Name, o.v.Name, o.v.Description, o.v.Directives), nil
}

// memberField answers the introspection fields that __Field, __InputValue
// and __EnumValue share (name, description, isDeprecated,
// deprecationReason); nil for any other field.
func memberField(field, name, desc string, dirs ast.DirectiveList) any {
	switch field {
	case "name":
		return name
	case "description":
		return str(desc)
	case "isDeprecated":
		dep, _ := deprecation(dirs)
		return dep
	case "deprecationReason":
		_, r := deprecation(dirs)
		return r
	}
	return nil
}

type directiveObject struct {
	s *ast.Schema
	d *ast.DirectiveDefinition
}

func (o directiveObject) field(_ context.Context, _ *execution, f *ast.Field, args map[string]any) (any, error) {
	switch f.Name {
	case "name":
		return o.d.Name, nil
	case "description":
		return str(o.d.Description), nil
	case "locations":
		out := make([]any, len(o.d.Locations))
		for i, l := range o.d.Locations {
			out[i] = string(l)
		}
		return out, nil
	case "args":
		out := []any{}
		for _, a := range o.d.Arguments {
			if dep, _ := deprecation(a.Directives); dep && !includeDeprecated(args) {
				continue
			}
			out = append(out, inputValueObject{s: o.s, name: a.Name, desc: a.Description, t: a.Type, def: a.DefaultValue, dirs: a.Directives})
		}
		return out, nil
	case "isRepeatable":
		return o.d.IsRepeatable, nil
	}
	return nil, nil
}
