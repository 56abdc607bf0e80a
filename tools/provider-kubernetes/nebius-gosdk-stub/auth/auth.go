// Package auth is the part of the github.com/nebius/gosdk/auth stand-in that
// provider-kubernetes v1.3.1 names (see ../gosdk.go).
package auth

// BearerToken is an IAM token.
type BearerToken struct {
	Token string
}

// PrivateKeyParser would parse a service account's authorized key.
type PrivateKeyParser struct{}

// NewPrivateKeyParser keeps nothing: tokens are never minted by the stand-in.
func NewPrivateKeyParser(_ []byte, _, _ string) PrivateKeyParser { return PrivateKeyParser{} }
