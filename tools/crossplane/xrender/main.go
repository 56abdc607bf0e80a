// Command crossplane-render is Modelplane's stand-in for the client half of
// `crossplane composition render` (Crossplane CLI v2.3), used only by the
// conformance tests in test/conformance.
//
// Why it exists: the CLI module (github.com/crossplane/cli/v2) is not served
// by the Go module proxy reachable from our machines, while the Crossplane core
// module is. In CLI v2.3 the render *engine* is not in the CLI anyway: the CLI
// loads the input files, builds a crossplane.render.v1alpha1.RenderRequest and
// pipes it to `crossplane internal render` of the core binary, which runs one
// real XR reconcile against an in-memory client. This program is our own,
// small implementation of that client half (load files, build the request,
// call the real core binary, print the YAML stream with the Kubernetes YAML
// serializer), written against the public Go APIs of Crossplane and Kubernetes
// so that everything that decides the output (reconciler, naming, conditions,
// events, Struct round-trips, key order, YAML formatting) is the real code.
//
// Only the Development function runtime is supported (there is no Docker here):
// every Function must point at an already running function.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"dario.cat/mergo"
	"github.com/alecthomas/kong"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kunstructured "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/crossplane/crossplane-runtime/v2/pkg/fieldpath"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource/unstructured/composed"
	ucomposite "github.com/crossplane/crossplane-runtime/v2/pkg/resource/unstructured/composite"
	"github.com/crossplane/crossplane-runtime/v2/pkg/xcrd"

	apiextensionsv1 "github.com/crossplane/crossplane/apis/v2/apiextensions/v1"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	pkgv1 "github.com/crossplane/crossplane/apis/v2/pkg/v1"
	pkgv1beta1 "github.com/crossplane/crossplane/apis/v2/pkg/v1beta1"
	fnv1 "github.com/crossplane/crossplane/v2/proto/fn/v1"
	renderv1alpha1 "github.com/crossplane/crossplane/v2/proto/render/v1alpha1"
)

const (
	annotationRuntime            = "render.crossplane.io/runtime"
	annotationDevelopmentTarget  = "render.crossplane.io/runtime-development-target"
	runtimeDevelopment           = "Development"
	defaultDevelopmentTarget     = "localhost:9443"
	annotationCompositionResName = "crossplane.io/composition-resource-name"

	// The CLI hosts an in-process function for --context-* and -c; these are
	// the names CLI v2.3 gives it and its two pipeline steps.
	contextFunctionName = "crossplane-render-context"
	contextSeedStep     = "crossplane-render-inject-context"
	contextCaptureStep  = "crossplane-render-extract-context"

	exitCodePipelineFatal = 3
)

type renderCmd struct {
	CompositeResource string `arg:"" help:"A YAML file specifying the composite resource (XR) to render." type:"existingfile"`
	Composition       string `arg:"" help:"A YAML file specifying the Composition to use to render the XR. Must be mode: Pipeline." type:"existingfile"`
	Functions         string `arg:"" help:"A YAML file or directory of YAML files specifying the Composition Functions to use to render the XR." type:"path"`

	ContextFiles           map[string]string `help:"Context key-value pairs to pass to the Function pipeline. Values must be files containing JSON/YAML." mapsep:""`
	ContextValues          map[string]string `help:"Context key-value pairs to pass to the Function pipeline. Values must be JSON/YAML. Keys take precedence over --context-files." mapsep:""`
	IncludeFunctionResults bool              `help:"Include events from the render engine in the output as resources of kind: Result." short:"r"`
	IncludeFullXR          bool              `help:"Include a direct copy of the input XR's spec and metadata fields in the rendered output." short:"x"`
	ObservedResources      string            `help:"A YAML file or directory of YAML files specifying the observed state of composed resources." placeholder:"PATH" short:"o" type:"path"`
	ExtraResources         []string          `help:"Deprecated alias of --required-resources." placeholder:"PATH" type:"path"`
	RequiredResources      []string          `help:"A YAML file or directory of YAML files specifying required resources. Repeatable." placeholder:"PATH" short:"e" type:"path"`
	RequiredSchemas        string            `help:"A directory of JSON files specifying OpenAPI v3 schemas." placeholder:"DIR" short:"s" type:"path"`
	IncludeContext         bool              `help:"Include the context in the rendered output as a resource of kind: Context." short:"c"`
	FunctionCredentials    string            `help:"A YAML file or directory of YAML files specifying credentials (Secrets) for Functions." placeholder:"PATH" type:"path"`
	FunctionAnnotations    []string          `help:"Override function annotations for all functions. Repeatable." placeholder:"KEY=VALUE" short:"a"`
	Timeout                time.Duration     `default:"1m" help:"How long to run before timing out."`
	XRD                    string            `help:"A YAML file specifying the CompositeResourceDefinition (XRD) of the XR." placeholder:"PATH" type:"existingfile"`
	CrossplaneBinary       string            `help:"Path to the crossplane core binary that provides 'internal render'." placeholder:"PATH" required:"" type:"existingfile"`
}

type cli struct {
	Composition struct {
		Render renderCmd `cmd:"" help:"Render a composite resource (XR) with the real Crossplane render engine."`
	} `cmd:"" help:"Composition commands."`
	Render renderCmd `cmd:"" help:"Alias of 'composition render'." hidden:""`
}

type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	var c cli
	k := kong.Parse(&c,
		kong.Name("crossplane-render"),
		kong.Description("Modelplane's client for the real Crossplane v2.3 render engine (crossplane internal render)."),
		kong.UsageOnError())
	var cmd *renderCmd
	switch k.Command() {
	case "render <composite-resource> <composition> <functions>":
		cmd = &c.Render
	default:
		cmd = &c.Composition.Render
	}
	if err := cmd.run(os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "crossplane-render: error: %v\n", err)
		if ee, ok := err.(*exitError); ok {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

func (c *renderCmd) run(stdout io.Writer) error { //nolint:gocyclo // Orchestration.
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()

	xr := ucomposite.New()
	if err := unmarshalFile(c.CompositeResource, xr); err != nil {
		return fmt.Errorf("cannot load composite resource from %q: %w", c.CompositeResource, err)
	}

	comp := &apiextensionsv1.Composition{}
	if err := unmarshalFile(c.Composition, comp); err != nil {
		return fmt.Errorf("cannot load Composition from %q: %w", c.Composition, err)
	}
	if comp.GroupVersionKind() != apiextensionsv1.CompositionGroupVersionKind {
		return fmt.Errorf("not a composition: %s/%s", comp.Kind, comp.GetName())
	}

	xrGVK := xr.GetObjectKind().GroupVersionKind()
	ref := comp.Spec.CompositeTypeRef
	if ref.Kind != xrGVK.Kind {
		return fmt.Errorf("composition's compositeTypeRef.kind (%s) does not match XR's kind (%s)", ref.Kind, xrGVK.Kind)
	}
	if ref.APIVersion != xrGVK.GroupVersion().String() {
		return fmt.Errorf("composition's compositeTypeRef.apiVersion (%s) does not match XR's apiVersion (%s)", ref.APIVersion, xrGVK.GroupVersion().String())
	}
	if sel := xr.GetCompositionSelector(); sel != nil {
		for key, want := range sel.MatchLabels {
			got, ok := comp.Labels[key]
			if !ok {
				return fmt.Errorf("composition %q is missing required label %q", comp.GetName(), key)
			}
			if got != want {
				return fmt.Errorf("composition %q has incorrect value for label %q: want %q, got %q", comp.GetName(), key, want, got)
			}
		}
	}
	if comp.Spec.Mode != apiextensionsv1.CompositionModePipeline {
		return fmt.Errorf("render only supports Composition Function pipelines: Composition %q must use spec.mode: Pipeline", comp.GetName())
	}

	fns, err := loadFunctions(c.Functions)
	if err != nil {
		return fmt.Errorf("cannot load functions from %q: %w", c.Functions, err)
	}
	for i := range fns {
		if fns[i].Annotations == nil {
			fns[i].Annotations = map[string]string{}
		}
		for _, a := range c.FunctionAnnotations {
			key, value, ok := strings.Cut(a, "=")
			if !ok {
				return fmt.Errorf("invalid function annotation format %q, expected key=value", a)
			}
			fns[i].Annotations[key] = value
		}
	}

	var xrdStruct *structpb.Struct
	if c.XRD != "" {
		xrd := &apiextensionsv1.CompositeResourceDefinition{}
		if err := unmarshalFile(c.XRD, xrd); err != nil {
			return fmt.Errorf("cannot load XRD from %q: %w", c.XRD, err)
		}
		if err := applyXRDDefaults(xr.GetUnstructured(), xrd); err != nil {
			return fmt.Errorf("cannot apply XRD defaults to XR %q: %w", xr.GetName(), err)
		}
		if xrdStruct, err = typedToStruct(xrd); err != nil {
			return fmt.Errorf("cannot convert XRD to protobuf: %w", err)
		}
	}

	var creds []*structpb.Struct
	if c.FunctionCredentials != "" {
		docs, err := loadYAMLStream(c.FunctionCredentials)
		if err != nil {
			return fmt.Errorf("cannot load secrets from %q: %w", c.FunctionCredentials, err)
		}
		for _, d := range docs {
			s := &corev1.Secret{}
			if err := kyaml.Unmarshal(d, s); err != nil {
				return fmt.Errorf("cannot parse YAML secret manifest: %w", err)
			}
			st, err := typedToStruct(s)
			if err != nil {
				return err
			}
			creds = append(creds, st)
		}
	}

	var observed []*structpb.Struct
	if c.ObservedResources != "" {
		docs, err := loadYAMLStream(c.ObservedResources)
		if err != nil {
			return fmt.Errorf("cannot load observed composed resources from %q: %w", c.ObservedResources, err)
		}
		for _, d := range docs {
			cd := composed.New()
			if err := kyaml.Unmarshal(d, cd); err != nil {
				return fmt.Errorf("cannot parse YAML composed resource manifest: %w", err)
			}
			st, err := objectToStruct(cd)
			if err != nil {
				return err
			}
			observed = append(observed, st)
		}
	}

	var required []*structpb.Struct
	for _, p := range slices.Concat(c.RequiredResources, c.ExtraResources) {
		docs, err := loadYAMLStream(p)
		if err != nil {
			return fmt.Errorf("cannot load required resources from %q: %w", p, err)
		}
		for _, d := range docs {
			u := &kunstructured.Unstructured{}
			if err := kyaml.Unmarshal(d, u); err != nil {
				return fmt.Errorf("cannot parse YAML resource manifest: %w", err)
			}
			st, err := objectToStruct(u)
			if err != nil {
				return err
			}
			required = append(required, st)
		}
	}

	schemas, err := loadRequiredSchemas(c.RequiredSchemas)
	if err != nil {
		return fmt.Errorf("cannot load required schemas from %q: %w", c.RequiredSchemas, err)
	}

	seedCtx := len(c.ContextFiles) > 0 || len(c.ContextValues) > 0
	var ctxfn *contextFunction
	if seedCtx || c.IncludeContext {
		data, err := buildContextData(c.ContextFiles, c.ContextValues)
		if err != nil {
			return err
		}
		ctxfn, err = startContextFunction(data)
		if err != nil {
			return fmt.Errorf("cannot start context function: %w", err)
		}
		defer ctxfn.stop()
		fns = append(fns, pkgv1.Function{ObjectMeta: metav1.ObjectMeta{
			Name: contextFunctionName,
			Annotations: map[string]string{
				annotationRuntime:           runtimeDevelopment,
				annotationDevelopmentTarget: ctxfn.target,
			},
		}})
		if seedCtx {
			comp.Spec.Pipeline = append([]apiextensionsv1.PipelineStep{ctxfn.step(contextSeedStep, "Seed")}, comp.Spec.Pipeline...)
		}
		if c.IncludeContext {
			comp.Spec.Pipeline = append(comp.Spec.Pipeline, ctxfn.step(contextCaptureStep, "Capture"))
		}
	}

	fnInputs := make([]*renderv1alpha1.FunctionInput, 0, len(fns))
	for _, fn := range fns {
		rt := fn.GetAnnotations()[annotationRuntime]
		if rt != runtimeDevelopment {
			return fmt.Errorf("function %q: only the %s runtime is supported by this client (set annotation %s: %s, or pass -a %s=%s)",
				fn.GetName(), runtimeDevelopment, annotationRuntime, runtimeDevelopment, annotationRuntime, runtimeDevelopment)
		}
		target := defaultDevelopmentTarget
		if t := fn.GetAnnotations()[annotationDevelopmentTarget]; t != "" {
			target = t
		}
		fnInputs = append(fnInputs, &renderv1alpha1.FunctionInput{Name: fn.GetName(), Address: target})
	}

	xrStruct, err := objectToStruct(xr)
	if err != nil {
		return fmt.Errorf("cannot convert composite resource to protobuf: %w", err)
	}
	compStruct, err := typedToStruct(comp)
	if err != nil {
		return fmt.Errorf("cannot convert Composition to protobuf: %w", err)
	}

	req := &renderv1alpha1.RenderRequest{
		Meta: &renderv1alpha1.RequestMeta{},
		Input: &renderv1alpha1.RenderRequest_Composite{Composite: &renderv1alpha1.CompositeInput{
			CompositeResource:           xrStruct,
			Composition:                 compStruct,
			Functions:                   fnInputs,
			ObservedResources:           observed,
			RequiredResources:           required,
			Credentials:                 creds,
			RequiredSchemas:             schemas,
			CompositeResourceDefinition: xrdStruct,
		}},
	}

	rsp, fatal, err := runEngine(ctx, c.CrossplaneBinary, req)
	if err != nil {
		return err
	}
	out := rsp.GetComposite()
	if out == nil {
		return fmt.Errorf("render response does not contain a composite output")
	}

	outXR := ucomposite.New()
	if s := out.GetCompositeResource(); s != nil {
		if err := structToObject(s, outXR); err != nil {
			return fmt.Errorf("cannot convert composite resource from protobuf: %w", err)
		}
	}
	cds := make([]*composed.Unstructured, 0, len(out.GetComposedResources()))
	for _, s := range out.GetComposedResources() {
		cd := composed.New()
		if err := structToObject(s, cd); err != nil {
			return fmt.Errorf("cannot convert composed resource from protobuf: %w", err)
		}
		cds = append(cds, cd)
	}

	if c.IncludeFullXR {
		full := xr.DeepCopy()
		if err := mergo.Merge(&full.Object, outXR.Object, mergo.WithOverride); err != nil {
			return fmt.Errorf("cannot merge updated XR: %w", err)
		}
		outXR = full
	}

	if err := fixConditionTimes(outXR.Object); err != nil {
		return err
	}
	for _, cd := range cds {
		if err := fixConditionTimes(cd.Object); err != nil {
			return err
		}
	}
	slices.SortStableFunc(cds, func(a, b *composed.Unstructured) int {
		return strings.Compare(a.GetAnnotations()[annotationCompositionResName], b.GetAnnotations()[annotationCompositionResName])
	})

	s := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, nil, nil, kjson.SerializerOptions{Yaml: true})
	buf := &bytes.Buffer{}
	emit := func(o kruntime.Object) error {
		buf.WriteString("---\n")
		return s.Encode(o, buf)
	}
	if err := emit(outXR); err != nil {
		return fmt.Errorf("cannot marshal composite resource to YAML: %w", err)
	}
	for _, cd := range cds {
		if err := emit(cd); err != nil {
			return fmt.Errorf("cannot marshal composed resource to YAML: %w", err)
		}
	}
	if c.IncludeFunctionResults {
		for _, ev := range out.GetEvents() {
			r := &kunstructured.Unstructured{Object: map[string]any{
				"apiVersion": "render.crossplane.io/v1beta1",
				"kind":       "Result",
				"severity":   ev.GetType(),
				"reason":     ev.GetReason(),
				"message":    ev.GetMessage(),
			}}
			if err := emit(r); err != nil {
				return fmt.Errorf("cannot marshal result to YAML: %w", err)
			}
		}
	}
	if c.IncludeContext && ctxfn != nil {
		if captured := ctxfn.captured(); captured != nil {
			o := &kunstructured.Unstructured{Object: map[string]any{
				"apiVersion": "render.crossplane.io/v1beta1",
				"kind":       "Context",
				"fields":     captured.AsMap(),
			}}
			if err := emit(o); err != nil {
				return fmt.Errorf("cannot marshal context to YAML: %w", err)
			}
		}
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if fatal != nil {
		return &exitError{code: exitCodePipelineFatal, err: fatal}
	}
	return nil
}

// runEngine pipes the request to `<binary> internal render`. Exit code 3 means
// a pipeline step returned a fatal result; the partial response is still
// returned, together with a non-nil fatal error.
func runEngine(ctx context.Context, binary string, req *renderv1alpha1.RenderRequest) (*renderv1alpha1.RenderResponse, error, error) {
	data, err := proto.Marshal(req)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot marshal render request: %w", err)
	}
	cmd := exec.CommandContext(ctx, binary, "internal", "render")
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stderr = os.Stderr
	out, runErr := cmd.Output()
	var fatal error
	if runErr != nil {
		ee, ok := runErr.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitCodePipelineFatal || len(out) == 0 {
			return nil, nil, fmt.Errorf("cannot run crossplane internal render: %w", runErr)
		}
		fatal = fmt.Errorf("cannot render composite resource: pipeline returned a fatal result (exit code %d)", exitCodePipelineFatal)
	}
	rsp := &renderv1alpha1.RenderResponse{}
	if err := proto.Unmarshal(out, rsp); err != nil {
		return nil, nil, fmt.Errorf("cannot unmarshal render response: %w", err)
	}
	return rsp, fatal, nil
}

// fixConditionTimes gives every status condition the fixed lastTransitionTime
// the CLI uses, by reading status into Crossplane's typed ConditionedStatus and
// writing the conditions back, exactly as the CLI does (so objects that have a
// status without conditions get `conditions: null`, as they do there).
func fixConditionTimes(obj map[string]any) error {
	p := fieldpath.Pave(obj)
	var cs xpv2.ConditionedStatus
	if err := p.GetValueInto("status", &cs); err != nil {
		return nil //nolint:nilerr // No status (or not an object): nothing to do.
	}
	t := metav1.NewTime(time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC))
	for i := range cs.Conditions {
		cs.Conditions[i].LastTransitionTime = t
	}
	if err := p.SetValue("status.conditions", cs.Conditions); err != nil {
		return fmt.Errorf("cannot set condition timestamps: %w", err)
	}
	return nil
}

func applyXRDDefaults(xr *kunstructured.Unstructured, xrd *apiextensionsv1.CompositeResourceDefinition) error {
	crd, err := xcrd.ForCompositeResource(xrd)
	if err != nil {
		return fmt.Errorf("cannot derive CRD from XRD %q: %w", xrd.GetName(), err)
	}
	var version *extv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Group+"/"+crd.Spec.Versions[i].Name == xr.GetAPIVersion() {
			version = &crd.Spec.Versions[i]
			break
		}
	}
	if version == nil {
		return fmt.Errorf("the specified API version '%s' does not exist in the XRD", xr.GetAPIVersion())
	}
	internal := apiextensions.JSONSchemaProps{}
	if err := extv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(version.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		return err
	}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return err
	}
	structuraldefaulting.Default(xr.Object, structural)
	return nil
}

func loadFunctions(path string) ([]pkgv1.Function, error) {
	docs, err := loadYAMLStream(path)
	if err != nil {
		return nil, err
	}
	fns := make([]pkgv1.Function, 0, len(docs))
	for _, d := range docs {
		f := &pkgv1.Function{}
		if err := kyaml.Unmarshal(d, f); err != nil {
			return nil, fmt.Errorf("cannot parse YAML Function manifest: %w", err)
		}
		switch gvk := f.GroupVersionKind(); gvk {
		case pkgv1.FunctionGroupVersionKind, pkgv1beta1.FunctionGroupVersionKind:
			fns = append(fns, *f)
		default:
			return nil, fmt.Errorf("not a function: %s/%s", gvk.Kind, f.GetName())
		}
	}
	return fns, nil
}

func loadRequiredSchemas(dir string) ([]*structpb.Struct, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*structpb.Struct
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		s := &structpb.Struct{}
		if err := s.UnmarshalJSON(b); err != nil {
			return nil, fmt.Errorf("cannot parse OpenAPI document %q: %w", e.Name(), err)
		}
		out = append(out, s)
	}
	return out, nil
}

func buildContextData(files, values map[string]string) (map[string]any, error) {
	raw := map[string][]byte{}
	for k, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("cannot read context value for key %q: %w", k, err)
		}
		raw[k] = b
	}
	for k, v := range values {
		raw[k] = []byte(v)
	}
	out := make(map[string]any, len(raw))
	for k, b := range raw {
		var v any
		if err := sigsyaml.Unmarshal(b, &v); err != nil {
			return nil, fmt.Errorf("cannot unmarshal YAML/JSON for context key %q: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// unmarshalFile decodes a single YAML (or JSON) document.
func unmarshalFile(path string, into any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return kyaml.Unmarshal(b, into)
}

// loadYAMLStream reads every non-empty document of a file, or of every .yaml
// and .yml file of a directory (not recursive, in directory order).
func loadYAMLStream(path string) ([][]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		files = nil
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			if ext := filepath.Ext(e.Name()); ext == ".yaml" || ext == ".yml" {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no YAML files found in %q (.yaml or .yml)", path)
		}
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := kyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			doc, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("cannot parse YAML stream %q: %w", f, err)
			}
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			out = append(out, doc)
		}
	}
	return out, nil
}

// objectToStruct converts an object to a protobuf Struct through its JSON form.
func objectToStruct(o any) (*structpb.Struct, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	s := &structpb.Struct{}
	return s, protojson.Unmarshal(b, s)
}

// typedToStruct converts a typed API object the way the CLI does: through the
// default unstructured converter first.
func typedToStruct(o kruntime.Object) (*structpb.Struct, error) {
	m, err := kruntime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
	}
	return objectToStruct(&kunstructured.Unstructured{Object: m})
}

func structToObject(s *structpb.Struct, into any) error {
	b, err := protojson.Marshal(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// contextFunction is an in-process composition function that seeds the
// pipeline context (first step) and captures it (last step), like the CLI's.
type contextFunction struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	data   map[string]any
	target string
	srv    *grpc.Server

	mu  sync.Mutex
	got *structpb.Struct
}

func startContextFunction(data map[string]any) (*contextFunction, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &contextFunction{data: data, target: lis.Addr().String(), srv: grpc.NewServer()}
	fnv1.RegisterFunctionRunnerServiceServer(f.srv, f)
	go func() { _ = f.srv.Serve(lis) }()
	return f, nil
}

func (f *contextFunction) stop() { f.srv.Stop() }

func (f *contextFunction) captured() *structpb.Struct {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.got
}

func (f *contextFunction) step(name, mode string) apiextensionsv1.PipelineStep {
	return apiextensionsv1.PipelineStep{
		Step:        name,
		FunctionRef: apiextensionsv1.FunctionReference{Name: contextFunctionName},
		Input:       &kruntime.RawExtension{Raw: []byte(`{"mode":"` + mode + `"}`)},
	}
}

func (f *contextFunction) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	mode := ""
	if in := req.GetInput(); in != nil {
		mode = in.GetFields()["mode"].GetStringValue()
	}
	rsp := &fnv1.RunFunctionResponse{Meta: &fnv1.ResponseMeta{Tag: req.GetMeta().GetTag()}, Desired: req.GetDesired()}
	switch mode {
	case "Seed":
		merged := map[string]any{}
		if c := req.GetContext(); c != nil {
			merged = c.AsMap()
		}
		keys := make([]string, 0, len(f.data))
		for k := range f.data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			merged[k] = f.data[k]
		}
		s, err := structpb.NewStruct(merged)
		if err != nil {
			return nil, fmt.Errorf("cannot build context struct: %w", err)
		}
		rsp.Context = s
	case "Capture":
		f.mu.Lock()
		if c := req.GetContext(); c != nil {
			f.got = proto.Clone(c).(*structpb.Struct)
		} else {
			f.got = nil
		}
		f.mu.Unlock()
	default:
		return nil, fmt.Errorf("unsupported mode %q", mode)
	}
	return rsp, nil
}
