// Command nod runs the nod Telegram bot; `nod help` lists its commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	// The zone database goes into the binary: a chat's zone must load in
	// a container that has none.
	_ "time/tzdata"

	"github.com/nodbot/nod/cmd/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := app.Run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, app.ErrBroken), errors.Is(err, app.ErrUnsafe): // the report has said why
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, "nod:", err)
		os.Exit(1)
	}
}
