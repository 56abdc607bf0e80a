// Code in this file replaces lego's generated DNS provider table in the lego copy
// scripts/traefik-build.sh builds: no DNS-challenge provider is in this build, so the binary
// links none of their cloud SDKs (tools/traefik/README.md, "A build that fits CI"). ACME over
// HTTP-01 and TLS-ALPN-01 is unchanged; a certificate resolver with a DNS challenge fails
// with the error below, in lego's own words.
package dns

import (
	"fmt"

	"github.com/go-acme/lego/v5/challenge"
)

// NewDNSChallengeProviderByName knows no provider in this build.
func NewDNSChallengeProviderByName(name string) (challenge.Provider, error) {
	return nil, fmt.Errorf("unrecognized DNS provider: %s (no DNS-challenge provider is in this build of Traefik: modelplane tools/traefik)", name)
}
