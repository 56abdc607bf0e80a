// Code in this file replaces the package in the Traefik copy scripts/traefik-build.sh builds:
// a provider the control-plane gateway does not use, kept as a configuration type only, so the
// binary does not link its SDK (tools/traefik/README.md, "A build that fits CI"). Enabling it
// fails at start-up with the error below; every flag of the provider is unknown.
package docker

import (
	"fmt"

	ptypes "github.com/traefik/paerser/types"
	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/safe"
)

// DockerName and SwarmName are the providers' names, as in Traefik.
const (
	DockerName = "docker"
	SwarmName  = "swarm"
)

// Provider is the Docker provider's configuration, reduced to the fields Traefik's static configuration reads.
type Provider struct {
	HTTPClientTimeout ptypes.Duration `json:"-" toml:"-" yaml:"-" label:"-" file:"-"`
}

// Init refuses: the Docker provider is not in this build.
func (p *Provider) Init() error { return notBuilt(DockerName) }

// Provide is never reached (Init refuses).
func (p *Provider) Provide(chan<- dynamic.Message, *safe.Pool) error { return notBuilt(DockerName) }

// SwarmProvider is the Swarm provider's configuration, reduced to the fields Traefik's static configuration reads.
type SwarmProvider struct {
	RefreshSeconds    ptypes.Duration `json:"-" toml:"-" yaml:"-" label:"-" file:"-"`
	HTTPClientTimeout ptypes.Duration `json:"-" toml:"-" yaml:"-" label:"-" file:"-"`
}

// Init refuses: the Swarm provider is not in this build.
func (p *SwarmProvider) Init() error { return notBuilt(SwarmName) }

// Provide is never reached (Init refuses).
func (p *SwarmProvider) Provide(chan<- dynamic.Message, *safe.Pool) error { return notBuilt(SwarmName) }

func notBuilt(name string) error {
	return fmt.Errorf("the %s provider is not in this build of Traefik (modelplane tools/traefik: the Kubernetes providers only)", name)
}
