// Package app is nod's process: configuration, the fx wiring and the
// subcommands. cmd/nod runs it as the nod binary; cmd/nodplay runs the very
// same wiring against a Bot API stand-in, so the playground is nod as
// `nod serve` runs it.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// usage is what `nod help` prints above serve's flags.
const usage = `nod is a Telegram bot whose LLM agent manages your tasks and never changes
them behind your back.

Usage:
  nod [serve] [flags]        run the bot (the default)
  nod migrate [flags]        apply the database migrations and exit
  nod eval [-json] [-run RE] measure the classifier model on nod's cases;
                             exit 1 if it would apply what nobody asked for
  nod audit export [flags]   write the audit log as CSV to stdout
  nod audit verify [flags]   check the audit log's hash chains; exit 1 if broken
  nod audit head [flags]     print the audit log's head, to keep elsewhere
  nod backup [-db DSN] FILE  write a consistent copy of the SQLite database to
                             the new FILE, while nod runs
  nod restore [-db DSN] FILE replace the SQLite database with the backup FILE;
                             stop nod first
  nod healthcheck [flags]    exit 0 if the nod on NOD_HTTP_ADDR answers /healthz,
                             else 1 (an image's HEALTHCHECK: no shell needed)
  nod version                print the version and the commit it was built from
  nod help [command]         this help, or a command's flags

`

// Run is nod without the process: the binary and the tests call it with
// their own arguments, environment and outputs; options replace parts of
// the wiring (the Clock) in tests and the playground. A request for help returns an
// error wrapping flag.ErrHelp after printing it; a broken audit chain
// returns ErrBroken after saying where.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, options ...Option) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "help":
		return help(ctx, args, getenv, stdout)
	case "version":
		info, _ := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, versionLine(info))
		return nil
	case "healthcheck":
		return healthcheck(ctx, args, getenv, stdout, stderr)
	case "audit":
		if len(args) == 0 {
			return errUsage
		}
		switch args[0] {
		case "export":
			return auditExport(ctx, args[1:], getenv, stdout, stderr)
		case "verify":
			return auditVerify(ctx, args[1:], getenv, stdout, stderr)
		case "head":
			return auditHead(ctx, args[1:], getenv, stdout, stderr)
		}
		return errUsage
	case "backup", "restore":
		if isHelp(args) {
			fmt.Fprintf(stdout, "usage: %s\n  -db path|url\n    \tSQLite file path or postgres:// URL (NOD_DB, default nod.db)\n", commandUsage[cmd])
			return flag.ErrHelp
		}
		if cmd == "backup" {
			return backupCmd(ctx, args, getenv, stdout, stderr)
		}
		return restoreCmd(ctx, args, getenv, stdout, stderr)
	case "eval":
		if isHelp(args) {
			fmt.Fprintln(stdout, "nod eval [-json] [-run REGEXP] [flags]: plays nod's classifier cases against OPENAI_BASE_URL and NOD_CLASSIFIER_MODEL")
			printFlags(stdout, "nod eval")
			return flag.ErrHelp
		}
		return evalCmd(ctx, args, getenv, stdout, stderr)
	case "serve", "migrate":
	default:
		return fmt.Errorf("unknown command %q: `nod help` lists the commands", cmd)
	}
	if isHelp(args) {
		// Help goes to stdout, so that `nod -h | less` works.
		if cmd == "serve" {
			fmt.Fprint(stdout, usage)
		}
		printFlags(stdout, "nod "+cmd)
		return flag.ErrHelp
	}
	cfg, rest, err := loadConfig("nod "+cmd, args, getenv, stderr)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q: `nod help` lists the commands", rest)
	}
	log := newLogger(cfg, stderr)
	if cmd == "migrate" {
		return migrate(ctx, cfg, log)
	}
	if cfg.Token == "" {
		return errors.New("TELEGRAM_BOT_TOKEN (or -token) is required to serve: ask @BotFather for one")
	}
	if cfg.WebhookURL != "" && cfg.WebhookSecret == "" {
		return errors.New("NOD_WEBHOOK_SECRET is required with NOD_WEBHOOK_URL: without it anyone could send updates")
	}
	if err := cfg.loadMCP(); err != nil {
		return err
	}
	if len(cfg.AllowedUsers) == 0 {
		log.Warn("NOD_ALLOWED_USERS is empty, so nod refuses everyone, you too; " +
			"send the bot a message: its refusal names your Telegram user id, which goes into NOD_ALLOWED_USERS")
	}
	return serve(ctx, cfg, log, options...)
}

// help prints the overview, or one command's flags.
func help(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	switch strings.Join(args, " ") {
	case "", "serve":
		fmt.Fprint(stdout, usage)
		printFlags(stdout, "nod serve")
	case "migrate":
		printFlags(stdout, "nod migrate")
	case "eval", "backup", "restore":
		return Run(ctx, []string{args[0], "-h"}, getenv, stdout, stdout)
	case "audit export", "audit verify", "audit head":
		return Run(ctx, append(args, "-h"), getenv, stdout, stdout)
	case "audit":
		fmt.Fprintln(stdout, errUsage)
	case "healthcheck":
		return Run(ctx, []string{"healthcheck", "-h"}, getenv, stdout, stdout)
	case "version", "help":
		fmt.Fprint(stdout, usage)
	default:
		return fmt.Errorf("no command %q: `nod help` lists the commands", strings.Join(args, " "))
	}
	return nil
}

func isHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help", "--h":
			return true
		case "--":
			return false
		}
	}
	return false
}
