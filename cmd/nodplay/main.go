// Command nodplay is nod in a browser: it runs nod exactly as `nod serve`
// does (the same wiring, a SQLite file), against a Telegram-compatible Bot
// API server on loopback, and serves a web page that is the chat. With
// OPENAI_BASE_URL set it talks to that model; without, a guided tour's
// scripted model walks through what nod does.
//
//	go run ./cmd/nodplay            then open http://127.0.0.1:8080
//
// The Bot API stand-in lives here and in fixtures, never in the nod binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/nodbot/nod/cmd/internal/app"
	"github.com/nodbot/nod/fixtures/openaitest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Environ, os.Stdout, os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "nodplay:", err)
		os.Exit(1)
	}
}

// options are nodplay's own settings; nod's come from the environment as
// they would for nod serve.
type options struct {
	addr     string // the page's listener
	db       string // SQLite file; empty: a temporary one
	model    string // "tour", "endpoint" for OPENAI_BASE_URL, or "relay"
	relayDir string // with "relay": the folder of requests and replies
	lang     string // the player's Telegram app language
	seed     bool   // start with a few example tasks
	group    bool   // play a group chat: Alice at the page, Bob by commands
	eval     string // relay:DIR: answer nod eval's classifier requests by hand
}

func run(ctx context.Context, args []string, environ func() []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("nodplay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "`host:port` of the page")
	fs.StringVar(&o.db, "db", "", "SQLite file `path` to keep the chat in (default: a temporary file)")
	fs.StringVar(&o.model, "model", "", "which model answers, a `mode`: tour (a scripted guided tour), endpoint (OPENAI_BASE_URL), or relay:DIR (you, or another program, play the model through files in DIR; see PLAYTEST.md); default: endpoint when OPENAI_BASE_URL is set")
	fs.StringVar(&o.lang, "lang", "en", "the `language` your Telegram app reports (en, de)")
	fs.BoolVar(&o.seed, "seed", true, "start an empty database with a few example tasks")
	fs.BoolVar(&o.group, "group", false, "play a group chat of two: you are Alice at the page, who made the group; Bob acts through the relay folder's commands (as bob say …)")
	fs.StringVar(&o.eval, "eval", "", "run nod eval with its classifier requests relayed through files: relay:`DIR` (see PLAYTEST.md); arguments after -- go to nod eval (-run, -json)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.eval != "" {
		return relayEval(ctx, o.eval, fs.Args(), environ, stdout, stderr)
	}
	if o.model == "" {
		o.model = "tour"
		if slices.ContainsFunc(environ(), func(kv string) bool {
			return strings.HasPrefix(kv, "OPENAI_BASE_URL=") && len(kv) > len("OPENAI_BASE_URL=")
		}) {
			o.model = "endpoint"
		}
	}
	if dir, ok := strings.CutPrefix(o.model, "relay:"); ok {
		if dir == "" {
			return errors.New("-model relay:DIR needs a folder")
		}
		o.model, o.relayDir = "relay", dir
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	env := map[string]string{}
	for _, kv := range environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "NOD_") || strings.HasPrefix(k, "OPENAI_") {
			env[k] = v
		}
	}
	p, err := start(ctx, o, env, stderr, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "nod playground (%s): open http://%s\n", p.modelName(), p.addr)
	<-ctx.Done()
	return p.close()
}

// relayEval runs nod eval with its classifier played through a relay
// folder, so that a person or a model player answers the case set.
func relayEval(ctx context.Context, target string, args []string, environ func() []string, stdout, stderr io.Writer) error {
	dir, ok := strings.CutPrefix(target, "relay:")
	if !ok || dir == "" {
		return errors.New("-eval wants relay:DIR")
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rl, err := newRelay(dir, log, func() {})
	if err != nil {
		return err
	}
	fakeLog := log.With("component", "fake")
	llm := openaitest.NewLogged(func(format string, args ...any) { fakeLog.Error(fmt.Sprintf(format, args...)) })
	defer llm.Close()
	llm.Handle(rl.answer)
	env := map[string]string{}
	for _, kv := range environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "NOD_") {
			env[k] = v
		}
	}
	env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"], env["NOD_CLASSIFIER_MODEL"] = llm.URL, "", relayClassifierModel
	if env["NOD_CLASSIFIER_TIMEOUT"] == "" {
		env["NOD_CLASSIFIER_TIMEOUT"] = "15m"
	}
	fmt.Fprintf(stderr, "nod eval: answer the classifier requests in %s (see PLAYTEST.md)\n", dir)
	return app.Run(ctx, append([]string{"eval"}, args...), func(k string) string { return env[k] }, stdout, stderr)
}
