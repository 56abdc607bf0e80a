// Code in this file replaces the package in the Traefik copy scripts/traefik-build.sh builds
// (beside Traefik's own types.go, kept): plugins are not in this build, so the binary links
// neither the Yaegi interpreter nor the WebAssembly runtime (tools/traefik/README.md, "A build
// that fits CI"). A configuration with plugins fails at start-up with the error below.
package plugins

import (
	"context"
	"errors"
	"net/http"

	"github.com/traefik/traefik/v3/pkg/provider"
)

var errNotBuilt = errors.New("plugins are not in this build of Traefik (modelplane tools/traefik: the Kubernetes providers only)")

// Constructor creates a plugin middleware handler, as in Traefik.
type Constructor func(context.Context, http.Handler) (http.Handler, error)

// Builder builds nothing: every plugin is refused.
type Builder struct{}

// NewBuilder returns a builder when no plugin is configured, else the error.
func NewBuilder(_ *Manager, plugins map[string]Descriptor, localPlugins map[string]LocalDescriptor) (*Builder, error) {
	if len(plugins) > 0 || len(localPlugins) > 0 {
		return nil, errNotBuilt
	}
	return &Builder{}, nil
}

// Build refuses: no plugin middleware is in this build.
func (b *Builder) Build(string, map[string]any, string) (Constructor, error) { return nil, errNotBuilt }

// BuildProvider refuses: no plugin provider is in this build.
func (b *Builder) BuildProvider(string, map[string]any) (provider.Provider, error) {
	return nil, errNotBuilt
}

// PluginDownloader is Traefik's plugin downloader interface.
type PluginDownloader interface {
	Download(ctx context.Context, pName, pVersion string) (string, error)
	Check(ctx context.Context, pName, pVersion, hash string) error
}

// RegistryDownloaderOptions are the registry downloader's options, as in Traefik.
type RegistryDownloaderOptions struct {
	HTTPClient   *http.Client
	ArchivesPath string
}

// RegistryDownloader downloads nothing.
type RegistryDownloader struct{}

// NewRegistryDownloader refuses: plugins are not in this build.
func NewRegistryDownloader(RegistryDownloaderOptions) (*RegistryDownloader, error) {
	return nil, errNotBuilt
}

// Download refuses.
func (d *RegistryDownloader) Download(context.Context, string, string) (string, error) {
	return "", errNotBuilt
}

// Check refuses.
func (d *RegistryDownloader) Check(context.Context, string, string, string) error { return errNotBuilt }

// ManagerOptions are the plugin manager's options, as in Traefik.
type ManagerOptions struct {
	Output string
}

// Manager manages no plugin.
type Manager struct{}

// NewManager refuses: plugins are not in this build.
func NewManager(PluginDownloader, ManagerOptions) (*Manager, error) { return nil, errNotBuilt }

// SetupRemotePlugins refuses: plugins are not in this build.
func SetupRemotePlugins(*Manager, map[string]Descriptor) error { return errNotBuilt }

// SetupLocalPlugins refuses: plugins are not in this build.
func SetupLocalPlugins(map[string]LocalDescriptor) error { return errNotBuilt }
