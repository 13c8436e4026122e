package main

import (
	"fmt"

	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/passport"
)

// startKeys opens the keyring for serve. In production it requires an
// active key whose private half is usable and changes nothing; in
// development it creates and activates a first key when none is active,
// and says so.
func (c *serveCmd) startKeys(e *env, db *store.DB) (*keyring.Keyring, error) {
	ring, err := c.keyFlags.keyring(db)
	if err != nil {
		return nil, err
	}
	if !service.StatusListsEnabled(c.Issuer) {
		e.log.Warn("the issuer identifier is not an https URL (or http on a loopback host): passports carry no status list entry and cannot be revoked", "issuer", c.Issuer)
	}
	if c.Env == "production" {
		if _, _, err := ring.Active(e.ctx); err != nil {
			return nil, fmt.Errorf("refusing to start in production: %w", err)
		}
		if c.Issuer == defaultIssuer {
			e.log.Warn("the issuer identifier is the development default: set --issuer (PASSPORT_ISSUER) to the issuer's public URL", "issuer", c.Issuer)
		}
		return ring, nil
	}
	g, err := ring.EnsureActive(e.ctx, passport.EdDSA)
	if err != nil {
		return nil, err
	}
	if g != nil {
		e.log.Warn("development: no signing key was active, so a new key was created and made active",
			"alg", g.Key.Alg, "kid", g.Key.KID, "path", g.Path)
	}
	return ring, nil
}
