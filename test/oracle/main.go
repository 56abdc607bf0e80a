// Command oracle answers CEL device-selector, quantity, semver and CRD
// validation-rule questions with the real Kubernetes code
// (k8s.io/dynamic-resource-allocation/cel, k8s.io/apimachinery/pkg/api/resource
// and k8s.io/apiextensions-apiserver at the versions pinned in go.mod; the
// CRD cases are in crd.go).
//
// Usage: oracle CASES.json > RESULTS.json
//
// CASES.json is {"devices": {name: Device}, "cases": [Case]}. The output is a
// JSON array with one Result per case, in input order, one per line.
//
// A "cel" case is validated the way the API server validates a new
// ResourceClaim selector (pkg/apis/resource/validation validateCELSelector):
// at most CELSelectorExpressionMaxLength bytes, compiled in the NewExpressions
// environment, rejected when the estimated cost exceeds
// CELSelectorExpressionMaxCost. It is then evaluated against the named device
// the way the scheduler does (CompilationResult.DeviceMatches), with the
// runtime cost limit of the DRA compiler.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/google/cel-go/cel"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// celSelectorExpressionMaxLength is resource.CELSelectorExpressionMaxLength
// of the internal API (k8s.io/kubernetes/pkg/apis/resource), not importable.
const celSelectorExpressionMaxLength = 10 * 1024

// Attribute is one device attribute; the int is read from a JSON number or
// a JSON string so that int64 limits survive JavaScript.
type Attribute struct {
	Int     json.RawMessage `json:"int,omitempty"`
	Bool    *bool           `json:"bool,omitempty"`
	String  *string         `json:"string,omitempty"`
	Version *string         `json:"version,omitempty"`
}

// Device is the InferenceClass device shape (only the fields CEL sees).
type Device struct {
	Driver     string               `json:"driver"`
	Attributes map[string]Attribute `json:"attributes,omitempty"`
	Capacity   map[string]struct {
		Value string `json:"value"`
	} `json:"capacity,omitempty"`
}

// Case is one question.
type Case struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"` // cel | quantity | semver | environment | crd
	Expression string `json:"expression,omitempty"`
	Device     string `json:"device,omitempty"`
	Input      string `json:"input,omitempty"`
	Normalize  bool   `json:"normalize,omitempty"`
	// Crd is the schema and objects of a crd case (crd.go).
	Crd *CrdCase `json:"crd,omitempty"`
}

// Result is the answer to one Case.
type Result struct {
	ID string `json:"id"`
	// Stage is where an error happened: compile, device (building the
	// device value), eval; empty when there was no error.
	Stage string `json:"stage,omitempty"`
	Error string `json:"error,omitempty"`
	// Value: for cel the bool result; for quantity the canonical String();
	// for semver the Version.String().
	Value any `json:"value,omitempty"`
	// Cost is the estimated worst-case cost (cel cases that compiled).
	Cost *uint64 `json:"cost,omitempty"`
	// ActualCost is the runtime cost of the evaluation (cel cases).
	ActualCost *uint64 `json:"actualCost,omitempty"`
	// Quantity extras (quantity cases that parsed).
	Float *string `json:"float,omitempty"`
	Int   *string `json:"int,omitempty"`
	Sign  *int    `json:"sign,omitempty"`
	Exact *string `json:"exact,omitempty"`
	// Crd is the answer to a crd case.
	Crd *CrdAnswer `json:"crd,omitempty"`
}

type input struct {
	Devices map[string]Device `json:"devices"`
	Cases   []Case            `json:"cases"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: oracle CASES.json")
		os.Exit(2)
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var in input
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "decode cases:", err)
		os.Exit(1)
	}
	out := bytes.NewBufferString("[\n")
	for i, c := range in.Cases {
		var r Result
		switch c.Kind {
		case "cel":
			d, ok := in.Devices[c.Device]
			if !ok && c.Device != "" {
				fmt.Fprintf(os.Stderr, "case %s: unknown device %q\n", c.ID, c.Device)
				os.Exit(1)
			}
			r = runCEL(c.Expression, d)
		case "quantity":
			r = runQuantity(c.Input)
		case "semver":
			r = runSemver(c.Input, c.Normalize)
		case "crd":
			if c.Crd == nil {
				fmt.Fprintf(os.Stderr, "case %s: crd case without crd\n", c.ID)
				os.Exit(1)
			}
			a := runCRD(*c.Crd)
			r = Result{Crd: &a}
		case "environment":
			// The compatibility version the NewExpressions environment is built for.
			r = Result{Value: environment.DefaultCompatibilityVersion().String()}
		default:
			fmt.Fprintf(os.Stderr, "case %s: unknown kind %q\n", c.ID, c.Kind)
			os.Exit(1)
		}
		r.ID = c.ID
		line, err := json.Marshal(r)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out.Write(line)
		if i < len(in.Cases)-1 {
			out.WriteString(",")
		}
		out.WriteString("\n")
	}
	out.WriteString("]\n")
	_, _ = os.Stdout.Write(out.Bytes())
}

func runCEL(expression string, d Device) Result {
	if len(expression) > celSelectorExpressionMaxLength {
		return Result{Stage: "compile", Error: fmt.Sprintf("expression too long: %d bytes, limit %d", len(expression), celSelectorExpressionMaxLength)}
	}
	envType := environment.NewExpressions
	compiled := dracel.GetCompiler(dracel.Features{}).CompileCELExpression(expression, dracel.Options{EnvType: &envType})
	if compiled.Error != nil {
		return Result{Stage: "compile", Error: compiled.Error.Error()}
	}
	cost := compiled.MaxCost
	if cost > resourceapi.CELSelectorExpressionMaxCost {
		return Result{Stage: "compile", Error: "too complex, exceeds cost limit", Cost: &cost}
	}
	device, err := toDevice(d)
	if err != nil {
		return Result{Stage: "device", Error: err.Error(), Cost: &cost}
	}
	matched, details, err := compiled.DeviceMatches(context.Background(), device)
	r := Result{Cost: &cost}
	if details != nil {
		r.ActualCost = details.ActualCost()
	}
	if err != nil {
		r.Stage = "eval"
		r.Error = err.Error()
		return r
	}
	r.Value = matched
	return r
}

func toDevice(d Device) (dracel.Device, error) {
	out := dracel.Device{
		Driver:     d.Driver,
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{},
		Capacity:   map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{},
	}
	for name, a := range d.Attributes {
		attr := resourceapi.DeviceAttribute{BoolValue: a.Bool, StringValue: a.String, VersionValue: a.Version}
		if len(a.Int) > 0 {
			s := string(a.Int)
			if unq, err := strconv.Unquote(s); err == nil {
				s = unq
			}
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return out, fmt.Errorf("attribute %s: int: %w", name, err)
			}
			attr.IntValue = &v
		}
		out.Attributes[resourceapi.QualifiedName(name)] = attr
	}
	for name, c := range d.Capacity {
		q, err := resource.ParseQuantity(c.Value)
		if err != nil {
			return out, fmt.Errorf("capacity %s: %w", name, err)
		}
		out.Capacity[resourceapi.QualifiedName(name)] = resourceapi.DeviceCapacity{Value: q}
	}
	return out, nil
}

func runQuantity(s string) Result {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return Result{Stage: "parse", Error: err.Error()}
	}
	r := Result{Value: q.String()}
	f := strconv.FormatFloat(q.AsApproximateFloat64(), 'e', -1, 64)
	r.Float = &f
	if v, ok := q.AsInt64(); ok {
		s := strconv.FormatInt(v, 10)
		r.Int = &s
	}
	sign := q.Sign()
	r.Sign = &sign
	exact := q.AsDec().String()
	r.Exact = &exact
	return r
}

var semverEnv = func() *cel.Env {
	env, err := cel.NewEnv(library.SemverLib(library.SemverVersion(1)), cel.Variable("s", cel.StringType), cel.Variable("n", cel.BoolType))
	if err != nil {
		panic(err)
	}
	return env
}()

var semverProgram = func() cel.Program {
	ast, iss := semverEnv.Compile("semver(s, n)")
	if iss.Err() != nil {
		panic(iss.Err())
	}
	prg, err := semverEnv.Program(ast)
	if err != nil {
		panic(err)
	}
	return prg
}()

func runSemver(s string, normalize bool) Result {
	v, _, err := semverProgram.Eval(map[string]any{"s": s, "n": normalize})
	if err != nil {
		return Result{Stage: "parse", Error: err.Error()}
	}
	sv, ok := v.(apiservercel.Semver)
	if !ok {
		return Result{Stage: "parse", Error: errors.New("not a semver").Error()}
	}
	return Result{Value: sv.Version.String()}
}
