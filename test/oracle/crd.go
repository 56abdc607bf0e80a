// CRD validation cases: a schema with x-kubernetes-validations rules, and
// optionally an object (and an old object) to validate, answered by the
// real apiextensions-apiserver code at the version pinned in go.mod:
//
//   - "crd": the errors ValidateCustomResourceDefinition reports for a CRD
//     with that schema (rules that do not compile, estimated costs over the
//     per-rule or per-CRD limits), as the API server does when the CRD is
//     written (the NewExpressions environment);
//   - "rules": per schema node with rules, what cel.Compile gives each rule
//     there: its error, or its estimated cost (MaxCost) and MaxCardinality;
//   - "validation": the errors of cel.Validator.Validate on the object, as
//     the API server does for a custom resource (the StoredExpressions
//     environment, RuntimeCELCostBudget), and the runtime cost it used.
//
// The random suffix of the root type name (selfType<nanoseconds>) is
// written as selfType, so answers are reproducible.
package main

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiservercel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// CrdCase is the input of a crd case.
type CrdCase struct {
	Schema    json.RawMessage `json:"schema"`
	Object    json.RawMessage `json:"object,omitempty"`
	OldObject json.RawMessage `json:"oldObject,omitempty"`
}

// RuleAnswer is what cel.Compile says about one rule.
type RuleAnswer struct {
	Path        string  `json:"path"`
	Rule        string  `json:"rule"`
	Error       string  `json:"error,omitempty"`
	Cost        *uint64 `json:"cost,omitempty"`
	Cardinality *uint64 `json:"cardinality,omitempty"`
}

// CrdAnswer is the answer to a crd case.
type CrdAnswer struct {
	// CRD holds the schema-related errors of ValidateCustomResourceDefinition.
	CRD   []string     `json:"crd"`
	Rules []RuleAnswer `json:"rules"`
	// Validation holds the validator's errors, when an object was given.
	Validation []string `json:"validation,omitempty"`
	// RuntimeCost is RuntimeCELCostBudget minus the budget left; omitted when
	// it differs between 30 runs (Go visits map entries in random order).
	RuntimeCost *int64 `json:"runtimeCost,omitempty"`
	// Failure is set when the case could not be run at all.
	Failure string `json:"failure,omitempty"`
}

var selfTypeName = regexp.MustCompile(`selfType\d+`)

func normalize(s string) string { return selfTypeName.ReplaceAllString(s, "selfType") }

func runCRD(c CrdCase) CrdAnswer {
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(c.Schema, &v1); err != nil {
		return CrdAnswer{Failure: "schema: " + err.Error()}
	}
	var internal apiextensionsinternal.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		return CrdAnswer{Failure: "convert: " + err.Error()}
	}
	ans := CrdAnswer{CRD: crdErrors(&v1), Rules: []RuleAnswer{}}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		ans.Failure = "structural: " + err.Error()
		return ans
	}
	ans.Rules = compileRules(structural, "", true)
	if len(c.Object) == 0 {
		return ans
	}
	var obj, old interface{}
	if err := json.Unmarshal(c.Object, &obj); err != nil {
		ans.Failure = "object: " + err.Error()
		return ans
	}
	obj = intsFromFloats(obj)
	if len(c.OldObject) > 0 {
		if err := json.Unmarshal(c.OldObject, &old); err != nil {
			ans.Failure = "oldObject: " + err.Error()
			return ans
		}
		old = intsFromFloats(old)
	}
	validator := apiservercel.NewValidator(structural, true, celconfig.PerCallLimit)
	ans.Validation = []string{}
	if validator == nil {
		zero := int64(0)
		ans.RuntimeCost = &zero
		return ans
	}
	var costs []int64
	for run := 0; run < 30; run++ {
		errs, remaining := validator.Validate(context.Background(), nil, structural, obj, old, celconfig.RuntimeCELCostBudget)
		if run == 0 {
			for _, e := range errs {
				ans.Validation = append(ans.Validation, normalize(e.Error()))
			}
			// The validator walks an object's properties in Go map order: the errors
			// are a set, sorted so the same question always gets the same answer.
			sort.Strings(ans.Validation)
		}
		costs = append(costs, celconfig.RuntimeCELCostBudget-remaining)
	}
	stable := true
	for _, c := range costs {
		stable = stable && c == costs[0]
	}
	if stable && costs[0] <= celconfig.RuntimeCELCostBudget {
		ans.RuntimeCost = &costs[0]
	}
	return ans
}

// intsFromFloats turns integral JSON numbers into int64, as the API server's
// unstructured decoding does.
func intsFromFloats(v interface{}) interface{} {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
		return x
	case []interface{}:
		for i := range x {
			x[i] = intsFromFloats(x[i])
		}
		return x
	case map[string]interface{}:
		for k := range x {
			x[k] = intsFromFloats(x[k])
		}
		return x
	}
	return v
}

// crdErrors validates a CRD (group fixtures.example.com, kind Fixture) with
// the schema and keeps the errors about its schema.
func crdErrors(schema *apiextensionsv1.JSONSchemaProps) []string {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "fixtures.fixtures.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "fixtures.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "fixtures", Singular: "fixture", Kind: "Fixture", ListKind: "FixtureList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema},
			}},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
	}
	var internal apiextensionsinternal.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &internal, nil); err != nil {
		return []string{"convert: " + err.Error()}
	}
	out := []string{}
	for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), &internal) {
		if strings.Contains(e.Field, "openAPIV3Schema") {
			out = append(out, normalize(e.Error()))
		}
	}
	return out
}

// compileRules compiles the rules of every node as the API server does when
// the CRD is written, in (path, rule) order.
func compileRules(s *structuralschema.Structural, path string, isResourceRoot bool) []RuleAnswer {
	out := []RuleAnswer{}
	if len(s.XValidations) > 0 {
		at := path
		if at == "" {
			at = "<root>"
		}
		declType := model.SchemaDeclType(s, isResourceRoot)
		results, err := apiservercel.Compile(s, declType, celconfig.PerCallLimit,
			environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion(), true), apiservercel.NewExpressionsEnvLoader())
		for i, rule := range s.XValidations {
			a := RuleAnswer{Path: at, Rule: rule.Rule}
			switch {
			case err != nil:
				a.Error = normalize(err.Error())
			case results[i].Error != nil:
				a.Error = normalize(results[i].Error.Detail)
			case results[i].Program != nil:
				cost, card := results[i].MaxCost, results[i].MaxCardinality
				a.Cost, a.Cardinality = &cost, &card
			}
			out = append(out, a)
		}
	}
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		child := s.Properties[k]
		p := k
		if path != "" {
			p = path + "." + k
		}
		out = append(out, compileRules(&child, p, child.XEmbeddedResource)...)
	}
	if s.Items != nil {
		out = append(out, compileRules(s.Items, path+"[*]", s.Items.XEmbeddedResource)...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		out = append(out, compileRules(s.AdditionalProperties.Structural, path+"[*]", s.AdditionalProperties.Structural.XEmbeddedResource)...)
	}
	return out
}



