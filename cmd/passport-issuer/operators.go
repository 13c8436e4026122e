package main

import (
	"encoding/json"
	"fmt"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// operatorsCmd groups the operator commands.
type operatorsCmd struct {
	Create   operatorsCreateCmd   `cmd:"" help:"Create an operator."`
	AddAgent operatorsAddAgentCmd `cmd:"" name:"add-agent" help:"Make an operator an agent's owner from now on; earlier owners stay in history."`
}

type operatorsCreateCmd struct {
	Name string `required:"" help:"Operator name."`
	JSON bool   `name:"json" help:"Print {\"id\": ...} as JSON."`
}

func (c *operatorsCreateCmd) Run(e *env) error {
	return e.withAdmin(func(a *service.Admin) error {
		id, err := a.CreateOperator(e.ctx, c.Name)
		if err != nil {
			return err
		}
		if c.JSON {
			return json.NewEncoder(e.stdout).Encode(map[string]issuer.OperatorID{"id": id})
		}
		fmt.Fprintf(e.stdout, "operator %s created\n", id)
		return nil
	})
}

type operatorsAddAgentCmd struct {
	Operator string `required:"" help:"Operator ID (op_...)."`
	Agent    string `required:"" help:"Agent ID (agt_...)."`
}

func (c *operatorsAddAgentCmd) Run(e *env) error {
	op, err := issuer.ParseOperatorID(c.Operator)
	if err != nil {
		return cli.Usage(err)
	}
	agent, err := issuer.ParseAgentID(c.Agent)
	if err != nil {
		return cli.Usage(err)
	}
	return e.withAdmin(func(a *service.Admin) error {
		if err := a.BindOwner(e.ctx, op, agent); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "agent %s is owned by %s from now on\n", agent, op)
		return nil
	})
}
