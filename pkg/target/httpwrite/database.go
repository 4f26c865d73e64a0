package httpwrite

import (
	"context"
	"errors"
	"fmt"

	"github.com/tsload/tsload/pkg/load"
)

// Database is how a target drops, finds and creates a database on its
// server; PrepareDatabase drives it by the lifecycle flags.
type Database struct {
	Drop   func(ctx context.Context, db string) error
	Exists func(ctx context.Context, db string) (bool, error)
	Create func(ctx context.Context, db string) error
}

// PrepareDatabase names the database (opts.DBName when set, else *name, and
// stores the choice in *name), then drops it (DropDB), checks it
// (AbortOnExist) and creates it when missing (CreateDB). where
// is the server named in messages.
func PrepareDatabase(ctx context.Context, opts load.PrepareOptions, name *string, where string, d Database) error {
	if opts.DBName != "" {
		*name = opts.DBName
	}
	db := *name
	if db == "" {
		return errors.New("no database name")
	}
	if opts.DropDB {
		if err := d.Drop(ctx, db); err != nil {
			return fmt.Errorf("drop database: %w", err)
		}
	}
	found, err := d.Exists(ctx, db)
	if err != nil {
		return err
	}
	if found && opts.AbortOnExist {
		return fmt.Errorf("database %q already exists on %s (asked to abort if it exists)", db, where)
	}
	if !found {
		if !opts.CreateDB {
			return fmt.Errorf("database %q does not exist on %s (and creating it was not asked for)", db, where)
		}
		if err := d.Create(ctx, db); err != nil {
			return fmt.Errorf("create database: %w", err)
		}
	}
	return nil
}
