package main

import (
	"context"
	"fmt"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
)

// cursorSealer returns the one sealer of every cursor the service issues,
// keyed by the database's cursor key: created by the first process that
// needs it, shared by every replica, kept across restarts.
func cursorSealer(ctx context.Context, db *store.DB) (*seal.Sealer, error) {
	key, err := db.CursorKey(ctx)
	if err != nil {
		return nil, err
	}
	s, err := seal.New(key)
	if err != nil {
		return nil, fmt.Errorf("cursor key: %w", err)
	}
	return s, nil
}

// startIndexer runs the discovery index's background indexer until ctx
// ends; the returned function waits for it to stop.
func (c *serveCmd) startIndexer(ctx context.Context, e *env, d *service.Discovery) (*service.Indexer, func()) {
	ix := d.NewIndexer(service.IndexerOptions{Poll: c.IndexPoll, Share: c.IndexShare, Logger: e.log})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ix.Run(ctx)
	}()
	return ix, func() { <-done }
}
