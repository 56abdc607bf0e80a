// The two functions Traefik v3.7.13 calls that exist only in its fork
// github.com/containous/go-http-auth (which the module proxy here refuses);
// everything else in this directory is upstream github.com/abbot/go-http-auth
// v0.4.0 (Apache-2.0, LICENSE), unchanged. Written from how Traefik calls
// them (pkg/middlewares/auth/basic_auth.go, digest_auth.go), not from the fork.

package auth

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// CheckSecret reports whether password matches secret, an htpasswd entry:
// `{SHA}` base64 SHA-1, `$2a$`/`$2y$` bcrypt, else `$apr1$`/`$1$` MD5-crypt,
// with the same comparisons BasicAuth.CheckAuth uses.
func CheckSecret(password, secret string) bool {
	compare := compareFuncs[0].compare
	for _, cmp := range compareFuncs[1:] {
		if strings.HasPrefix(secret, cmp.prefix) {
			compare = cmp.compare
			break
		}
	}
	return compare([]byte(secret), []byte(password)) == nil
}

// RequireAuthStale is RequireAuth with `stale=true` in the challenge
// (RFC 7616 §3.3: the nonce expired but the credentials may be right, so the
// client retries with the new nonce without asking the user again).
func (a *DigestAuth) RequireAuthStale(w http.ResponseWriter, r *http.Request) {
	if len(a.clients) > a.ClientCacheSize+a.ClientCacheTolerance {
		a.Purge(a.ClientCacheTolerance * 2)
	}
	nonce := RandomKey()
	a.clients[nonce] = &digest_client{nc: 0, last_seen: time.Now().UnixNano()}
	w.Header().Set(contentType, a.Headers.V().UnauthContentType)
	w.Header().Set(a.Headers.V().Authenticate,
		fmt.Sprintf(`Digest realm="%s", nonce="%s", opaque="%s", algorithm="MD5", qop="auth", stale=true`,
			a.Realm, nonce, a.Opaque))
	w.WriteHeader(a.Headers.V().UnauthCode)
	w.Write([]byte(a.Headers.V().UnauthResponse))
}
