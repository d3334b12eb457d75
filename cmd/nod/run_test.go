package main

import "github.com/nodbot/nod/cmd/internal/app"

// The end-to-end tests drive nod through app.Run, as main does.
var (
	run       = app.Run
	errBroken = app.ErrBroken
)
