// Code in this file replaces the package in the Traefik copy scripts/traefik-build.sh builds:
// a provider the control-plane gateway does not use, kept as a configuration type only, so the
// binary does not link its SDK (tools/traefik/README.md, "A build that fits CI"). Enabling it
// fails at start-up with the error below; every flag of the provider is unknown.
package redis

import (
	"fmt"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/safe"
)

// ProviderName is the provider's name, as in Traefik.
const ProviderName = "redis"

// Provider is the provider's configuration, with none of its fields.
type Provider struct{}

// Init refuses: the provider is not in this build.
func (p *Provider) Init() error { return notBuilt() }

// Provide is never reached (Init refuses).
func (p *Provider) Provide(chan<- dynamic.Message, *safe.Pool) error { return notBuilt() }

func notBuilt() error {
	return fmt.Errorf("the %s provider is not in this build of Traefik (modelplane tools/traefik: the Kubernetes providers only)", ProviderName)
}
