package main

import "fmt"

// migrateCmd applies pending migrations.
type migrateCmd struct{}

func (migrateCmd) Run(e *env) error {
	db, err := e.connect("")
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := db.Migrate(e.ctx)
	if err != nil {
		return err
	}
	for _, m := range applied {
		fmt.Fprintf(e.stdout, "applied %d %s\n", m.Version, m.Name)
	}
	current, _, err := db.SchemaVersion(e.ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s schema at version %d\n", db.Engine(), current)
	return nil
}
