// Command fn-client calls a composition function's RunFunction as Crossplane
// core does: one long-lived grpc-go connection (grpc.NewClient with core's
// round-robin service config, internal/xfn/function_runner.go in core
// v2.4.0), the request marshalled in Go from the generated
// fnv1.RunFunctionRequest and the response unmarshalled into
// fnv1.RunFunctionResponse. The scheduler bench's cadence rows
// (bench/scheduler-cadence.ts) run it, so that the client side of a call is
// Go's, as on a real control plane, and idles as core does.
//
// Usage: fn-client --address HOST:PORT --gaps G1,G2,... REQUEST.bin...
//
// Each REQUEST.bin is one encoded RunFunctionRequest. Every request is
// called once untimed first (a warm process has served every XR before);
// then timed call i sleeps gaps[i] seconds and calls request i mod n. Each
// timed call prints one line on stdout:
//
//	<request index> <gap s> <marshal ms> <call ms> <unmarshal ms>
//
// where `call` is the RunFunction with the marshalled bytes (the function's
// share: the wire, its decode, compose and encode), and marshal/unmarshal
// are what core spends on either side of it. Exit 1 with the error on
// stderr on any failure.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	fnv1 "github.com/crossplane/crossplane/v2/proto/fn/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
)

// method is RunFunction's full gRPC method name (proto/fn/v1/run_function.proto).
const method = "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction"

// bytesCodec carries already-marshalled messages, so the call's time is the
// wire and the function alone; marshalling is timed apart.
type bytesCodec struct{}

func (bytesCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (bytesCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (bytesCodec) Name() string { return "proto" }

func main() {
	address := flag.String("address", "", "the function's host:port (plaintext, as `--insecure` serves)")
	gaps := flag.String("gaps", "", "comma-separated idle gaps in seconds, one per timed call")
	flag.Parse()
	if err := run(*address, *gaps, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "fn-client:", err)
		os.Exit(1)
	}
}

func parseGaps(s string) ([]float64, error) {
	var out []float64
	for _, g := range strings.Split(s, ",") {
		if g == "" {
			continue
		}
		v, err := strconv.ParseFloat(g, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("--gaps: %q is not a number of seconds", g)
		}
		out = append(out, v)
	}
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func run(address, gapsFlag string, files []string) error {
	if address == "" || len(files) == 0 {
		return fmt.Errorf("usage: fn-client --address HOST:PORT --gaps G1,G2,... REQUEST.bin...")
	}
	gaps, err := parseGaps(gapsFlag)
	if err != nil {
		return err
	}
	reqs := make([]*fnv1.RunFunctionRequest, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		reqs[i] = &fnv1.RunFunctionRequest{}
		if err := proto.Unmarshal(b, reqs[i]); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	conn, err := grpc.NewClient(address, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(`{"loadBalancingConfig":[{"round_robin":{}}]}`))
	if err != nil {
		return err
	}
	defer conn.Close()

	// call marshals, calls and unmarshals one request, timing each part.
	call := func(r *fnv1.RunFunctionRequest) (marshal, rpc, unmarshal time.Duration, err error) {
		t0 := time.Now()
		in, err := proto.Marshal(r)
		if err != nil {
			return 0, 0, 0, err
		}
		t1 := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var out []byte
		if err := conn.Invoke(ctx, method, &in, &out, grpc.ForceCodec(bytesCodec{})); err != nil {
			return 0, 0, 0, err
		}
		t2 := time.Now()
		if err := proto.Unmarshal(out, &fnv1.RunFunctionResponse{}); err != nil {
			return 0, 0, 0, err
		}
		return t1.Sub(t0), t2.Sub(t1), time.Since(t2), nil
	}
	for _, r := range reqs {
		if _, _, _, err := call(r); err != nil {
			return err
		}
	}
	for i, g := range gaps {
		time.Sleep(time.Duration(g * float64(time.Second)))
		k := i % len(reqs)
		m, c, u, err := call(reqs[k])
		if err != nil {
			return err
		}
		fmt.Printf("%d %.3f %.3f %.3f %.3f\n", k, g, ms(m), ms(c), ms(u))
	}
	return nil
}
