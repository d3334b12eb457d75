// Command nod runs the nod Telegram bot.
//
//	nod [serve] [flags]   run the bot (the default)
//	nod migrate [flags]   apply database migrations and exit
//	nod audit export      write the audit log as CSV
//	nod audit verify      check the audit log's hash chains (and, with -head,
//	                      that nothing up to a head was cut); exit 1 if not
//	nod audit head        print the audit log's head, to keep elsewhere
//	nod version           print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/fx"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) && !errors.Is(err, errBroken) {
			fmt.Fprintln(os.Stderr, "nod:", err)
		}
		os.Exit(1)
	}
}

// run is nod without the process: tests call it with their own arguments,
// environment and outputs. extra fx options replace parts of the wiring in
// tests (the clock).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, extra ...fx.Option) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "version":
		fmt.Fprintln(stdout, "nod", version)
		return nil
	case "audit":
		switch {
		case len(args) > 0 && args[0] == "export":
			return auditExport(ctx, args[1:], getenv, stdout, stderr)
		case len(args) > 0 && args[0] == "verify":
			return auditVerify(ctx, args[1:], getenv, stdout, stderr)
		case len(args) > 0 && args[0] == "head":
			return auditHead(ctx, args[1:], getenv, stdout, stderr)
		}
		return errUsage
	case "serve", "migrate":
	default:
		return fmt.Errorf("unknown command %q (want serve, migrate, audit export or version)", cmd)
	}
	cfg, rest, err := loadConfig("nod "+cmd, args, getenv, stderr)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	log := newLogger(cfg, stderr)
	if cmd == "migrate" {
		return migrate(ctx, cfg, log)
	}
	if cfg.Token == "" {
		return errors.New("TELEGRAM_BOT_TOKEN (or -token) is required to serve")
	}
	if cfg.WebhookURL != "" && cfg.WebhookSecret == "" {
		return errors.New("NOD_WEBHOOK_SECRET is required with NOD_WEBHOOK_URL: without it anyone could send updates")
	}
	return serve(ctx, cfg, log, extra...)
}
