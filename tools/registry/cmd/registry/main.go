// Command registry serves an OCI distribution registry over TLS on one address,
// for installing Modelplane's packages the way users do (crossplane xpkg push,
// then Crossplane core pulls) without reaching any remote registry.
//
// The registry is go-containerregistry's in-memory registry (pkg/registry);
// blobs are kept on disk under -blobs when it is set, so pushed packages
// survive a restart. Ours is only the flag handling and TLS.
//
// Usage: registry -address 127.0.0.1:5000 -tls-cert tls.crt -tls-key tls.key [-blobs DIR]
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	address := flag.String("address", "127.0.0.1:5000", "host:port to listen on (loopback only: it takes any push)")
	cert := flag.String("tls-cert", "", "PEM certificate (required)")
	key := flag.String("tls-key", "", "PEM private key (required)")
	blobs := flag.String("blobs", "", "directory for blobs (default: in memory)")
	verbose := flag.Bool("v", false, "log every request")
	flag.Parse()

	if *cert == "" || *key == "" {
		fmt.Fprintln(os.Stderr, "registry: -tls-cert and -tls-key are required")
		os.Exit(2)
	}
	host, _, err := net.SplitHostPort(*address)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(os.Stderr, "registry: -address %q: want a loopback host:port such as 127.0.0.1:5000\n", *address)
		os.Exit(2)
	}

	logger := log.New(io.Discard, "", 0)
	if *verbose {
		logger = log.New(os.Stderr, "registry: ", log.LstdFlags)
	}
	opts := []registry.Option{registry.Logger(logger)}
	if *blobs != "" {
		if err := os.MkdirAll(*blobs, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "registry: %v\n", err)
			os.Exit(1)
		}
		opts = append(opts, registry.WithBlobHandler(registry.NewDiskBlobHandler(*blobs)))
	}

	srv := &http.Server{Addr: *address, Handler: registry.New(opts...), ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", *address)
	if err != nil {
		fmt.Fprintf(os.Stderr, "registry: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "registry: serving https://%s\n", ln.Addr())
	if err := srv.ServeTLS(ln, *cert, *key); err != nil {
		fmt.Fprintf(os.Stderr, "registry: %v\n", err)
		os.Exit(1)
	}
}
