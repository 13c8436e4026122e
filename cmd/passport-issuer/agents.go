package main

import (
	"encoding/json"
	"fmt"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// agentsCmd groups the agent commands.
type agentsCmd struct {
	Create        agentsCreateCmd        `cmd:"" help:"Create an agent and its API key."`
	SetStatus     agentsSetStatusCmd     `cmd:"" name:"set-status" help:"Suspend or reactivate an agent."`
	SetVisibility agentsSetVisibilityCmd `cmd:"" name:"set-visibility" help:"Change who may see an agent's public profile, passport and discovery entry."`
	RotateKey     agentsRotateKeyCmd     `cmd:"" name:"rotate-key" help:"Revoke an agent's keys and issue a new one."`
}

type agentsCreateCmd struct {
	Name        string `required:"" help:"Agent name."`
	Description string `help:"Agent description."`
	Operator    string `help:"Operator ID (op_...) that owns the agent."`
	Scopes      string `default:"publish,search,feedback" help:"Comma-separated scopes of the key: publish, search, feedback, admin."`
	Visibility  string `enum:"public,unlisted,private" default:"public" help:"Who may see the public profile."`
	JSON        bool   `name:"json" help:"Print {\"publicId\": ..., \"apiKey\": ...} as JSON."`
}

func (c *agentsCreateCmd) Run(e *env) error {
	scopes, err := issuer.ParseScopes(c.Scopes)
	if err != nil {
		return cli.Usage(err)
	}
	var op issuer.OperatorID
	if c.Operator != "" {
		if op, err = issuer.ParseOperatorID(c.Operator); err != nil {
			return cli.Usage(err)
		}
	}
	return e.withAdmin(func(adm *service.Admin) error {
		a, err := adm.CreateAgent(e.ctx, service.NewAgent{
			Name: c.Name, Description: c.Description, Operator: op, Scopes: scopes, Visibility: issuer.Visibility(c.Visibility),
		})
		if err != nil {
			return err
		}
		return printKey(e, c.JSON, a.ID, a.Key, "agent %s created\n")
	})
}

type agentsSetStatusCmd struct {
	Agent  string `arg:"" help:"Agent ID (agt_...)."`
	Status string `required:"" enum:"active,suspended" help:"active or suspended."`
}

func (c *agentsSetStatusCmd) Run(e *env) error {
	return changeAgent(e, c.Agent, c.Status, func(a *service.Admin, agent issuer.AgentID) error {
		return a.SetAgentStatus(e.ctx, agent, issuer.AgentStatus(c.Status))
	})
}

// changeAgent applies change to the agent named by arg and says what the
// agent now is.
func changeAgent(e *env, arg, now string, change func(*service.Admin, issuer.AgentID) error) error {
	agent, err := issuer.ParseAgentID(arg)
	if err != nil {
		return cli.Usage(err)
	}
	return e.withAdmin(func(a *service.Admin) error {
		if err := change(a, agent); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "agent %s is %s\n", agent, now)
		return nil
	})
}

type agentsSetVisibilityCmd struct {
	Agent      string `arg:"" help:"Agent ID (agt_...)."`
	Visibility string `required:"" enum:"public,unlisted,private" help:"public, unlisted or private."`
}

func (c *agentsSetVisibilityCmd) Run(e *env) error {
	return changeAgent(e, c.Agent, c.Visibility, func(a *service.Admin, agent issuer.AgentID) error {
		return a.SetAgentVisibility(e.ctx, agent, issuer.Visibility(c.Visibility))
	})
}

type agentsRotateKeyCmd struct {
	Agent  string `arg:"" help:"Agent ID (agt_...)."`
	Scopes string `help:"Comma-separated scopes of the new key; those of the current key when empty."`
	JSON   bool   `name:"json" help:"Print {\"publicId\": ..., \"apiKey\": ...} as JSON."`
}

func (c *agentsRotateKeyCmd) Run(e *env) error {
	agent, err := issuer.ParseAgentID(c.Agent)
	if err != nil {
		return cli.Usage(err)
	}
	var scopes []issuer.Scope
	if c.Scopes != "" {
		if scopes, err = issuer.ParseScopes(c.Scopes); err != nil {
			return cli.Usage(err)
		}
	}
	return e.withAdmin(func(a *service.Admin) error {
		key, err := a.RotateKey(e.ctx, agent, scopes)
		if err != nil {
			return err
		}
		return printKey(e, c.JSON, agent, key, "earlier keys of %s revoked\n")
	})
}

// printKey prints an agent's new API key: as {"publicId", "apiKey"} in
// JSON, or after the line that format gives with the agent.
func printKey(e *env, asJSON bool, agent issuer.AgentID, key issuer.APIKey, format string) error {
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(struct {
			PublicID issuer.AgentID `json:"publicId"`
			APIKey   issuer.APIKey  `json:"apiKey"`
		}{agent, key})
	}
	fmt.Fprintf(e.stdout, format+"API key (shown once): %s\n", agent, key)
	return nil
}
