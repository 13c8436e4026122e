package main

import (
	"encoding/json"
	"fmt"

	"github.com/remnant/passportkit/passport"
)

type keysProveCmd struct {
	Key   string `help:"The holder key: a private JWK (Ed25519 or P-256)." required:"" placeholder:"FILE" type:"path"`
	Nonce string `help:"The nonce the issuer handed out (POST /api/agents/me/holder-keys/nonce)." required:""`
	Aud   string `help:"The issuer's identifier: the issuer member of its trust file." required:""`
	Sub   string `help:"Your agent id (agt_…)." required:""`
	JSON  bool   `name:"json" help:"Print one member of the keys list of PUT /api/agents/me/holder-keys: {\"jwk\":…,\"proof\":…}."`
}

func (c *keysProveCmd) Run(e *env) error {
	key, err := loadPrivateKey(e, c.Key)
	if err != nil {
		return err
	}
	proof, err := passport.ProveHolderKey(key, passport.HolderProof{Audience: c.Aud, Nonce: c.Nonce, Subject: c.Sub})
	if err != nil {
		return err
	}
	if !c.JSON {
		_, err = fmt.Fprintln(e.stdout, proof)
		return err
	}
	jwk, err := key.Public().MarshalJSON()
	if err != nil {
		return err
	}
	b, err := passport.Marshal(struct {
		JWK   json.RawMessage `json:"jwk"`
		Proof string          `json:"proof"`
	}{jwk, proof})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", b)
	return err
}
