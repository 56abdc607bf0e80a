// Command argocd-health runs an Argo CD resource health check (Lua) against
// Kubernetes objects the way Argo CD's application controller does for a
// `resource.customizations.health.<group>_<kind>` key in argocd-cm
// (docs/argocd.md):
//
//   - gopher-lua, the Lua engine Argo CD embeds, with the standard libraries
//     NOT opened (a health check from argocd-cm runs without them unless
//     `useOpenLibs` is set): only the package, base and table libraries are
//     loaded, so a script calling string.*, math.* or os.* fails here as it
//     fails in Argo CD;
//   - the object is the global `obj`, converted from JSON value by value
//     (objects to tables, arrays to 1-based sequences, null to nil);
//   - the script runs under a one-second deadline;
//   - it must return a table; its `status` must be one of Healthy,
//     Progressing, Degraded, Suspended, Missing or Unknown, else the result is
//     Unknown "Lua returned an invalid health status".
//
// Usage: argocd-health SCRIPT.lua < objects.json
//
// stdin holds a JSON array of objects; stdout a JSON array of results, one
// per object, in order: {"status": "...", "message": "..."} or
// {"error": "..."} when the script fails or returns no table.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Result is one health assessment, or the error Argo CD would report instead.
type Result struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

const invalidHealthStatus = "Lua returned an invalid health status"

var validStatus = map[string]bool{
	"Healthy": true, "Progressing": true, "Degraded": true,
	"Suspended": true, "Missing": true, "Unknown": true,
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: argocd-health SCRIPT.lua < objects.json")
		os.Exit(2)
	}
	script, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "argocd-health: %v\n", err)
		os.Exit(2)
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "argocd-health: reading stdin: %v\n", err)
		os.Exit(2)
	}
	var objects []map[string]any
	if err := json.Unmarshal(input, &objects); err != nil {
		fmt.Fprintf(os.Stderr, "argocd-health: stdin is not a JSON array of objects: %v\n", err)
		os.Exit(2)
	}
	results := make([]Result, 0, len(objects))
	for _, obj := range objects {
		results = append(results, Assess(string(script), obj))
	}
	out, _ := json.Marshal(results)
	fmt.Println(string(out))
}

// Assess runs script against obj in a fresh Lua state, as Argo CD does for
// every object it assesses.
func Assess(script string, obj map[string]any) Result {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return Result{Error: fmt.Sprintf("opening %s: %v", lib.name, err)}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return Result{Error: err.Error()}
	}
	ret := l.Get(-1)
	table, ok := ret.(*lua.LTable)
	if !ok {
		return Result{Error: fmt.Sprintf("expect table output from Lua script, not %s", ret.Type().String())}
	}
	status, message := table.RawGetString("status"), table.RawGetString("message")
	if message != lua.LNil && message.Type() != lua.LTString {
		return Result{Error: fmt.Sprintf("hs.message is a %s, not a string", message.Type().String())}
	}
	s, isString := status.(lua.LString)
	if !isString || !validStatus[string(s)] {
		return Result{Status: "Unknown", Message: invalidHealthStatus}
	}
	if message == lua.LNil {
		return Result{Status: string(s)}
	}
	return Result{Status: string(s), Message: string(message.(lua.LString))}
}

// toLua converts a decoded JSON value to a Lua value, as Argo CD converts an
// object's fields: arrays become sequences appended in order, objects tables
// keyed by string, null nil.
func toLua(l *lua.LState, value any) lua.LValue {
	switch v := value.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []any:
		arr := l.CreateTable(len(v), 0)
		for _, item := range v {
			arr.Append(toLua(l, item))
		}
		return arr
	case map[string]any:
		tbl := l.CreateTable(0, len(v))
		for key, item := range v {
			tbl.RawSetH(lua.LString(key), toLua(l, item))
		}
		return tbl
	}
	return lua.LNil
}
