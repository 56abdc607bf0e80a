// Package gosdk is a stand-in for github.com/nebius/gosdk, which the Go module
// proxy refuses to serve here. provider-kubernetes uses it only to mint Nebius
// IAM tokens for Objects whose ProviderConfig has a
// NebiusServiceAccountCredentials identity; with this stand-in such an Object
// fails with errUnsupported, and every other credential type works unchanged.
// Only the four identifiers provider-kubernetes v1.3.1 calls exist here.
package gosdk

import (
	"context"
	"errors"

	"github.com/nebius/gosdk/auth"
)

var errUnsupported = errors.New("Nebius service account credentials are not supported in this build of provider-kubernetes (Modelplane dev control plane)")

// SDK would hold a Nebius API client; here it only refuses to mint tokens.
type SDK struct{}

// Option configures New.
type Option func(*SDK)

// CredentialsReader reads service account credentials.
type CredentialsReader struct{}

// New always fails: there is no Nebius API on this machine.
func New(_ context.Context, _ ...Option) (*SDK, error) { return nil, errUnsupported }

// WithCredentials is accepted and ignored.
func WithCredentials(_ CredentialsReader) Option { return func(*SDK) {} }

// ServiceAccountReader is accepted and ignored.
func ServiceAccountReader(_ auth.PrivateKeyParser) CredentialsReader { return CredentialsReader{} }

// BearerToken always fails.
func (*SDK) BearerToken(context.Context) (auth.BearerToken, error) {
	return auth.BearerToken{}, errUnsupported
}
