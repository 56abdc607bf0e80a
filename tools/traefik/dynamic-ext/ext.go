// Package ext stands in for Traefik's github.com/traefik/traefik/dynamic/ext, a nested
// module (pkg/config/dynamic/ext in Traefik's repository) that the v3 module requires
// with `replace => ./pkg/config/dynamic/ext`. A module zip never contains a nested
// module, and replace directives of a dependency are ignored, so building Traefik as a
// module needs this stand-in. Traefik embeds both types inline in its dynamic
// configuration (dynamic.HTTPConfiguration, dynamic.Router) as extension points and
// copies them by value; the open-source build defines them empty, and so do we.
package ext

// HTTP extends dynamic.HTTPConfiguration (empty in the open-source build).
type HTTP struct{}

// Router extends dynamic.Router (empty in the open-source build).
type Router struct{}
