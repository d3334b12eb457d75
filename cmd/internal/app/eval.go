package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/cmd/internal/eval"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/storage"
	"github.com/prometheus/client_golang/prometheus"
)

// ErrUnsafe makes `nod eval` exit 1: the model made a false explicit.
var ErrUnsafe = errors.New("the classifier model would have applied changes nobody asked for")

// evalFlags are nod eval's own flags; the rest are serve's configuration.
type evalFlags struct {
	json bool
	run  *regexp.Regexp
}

// cutEvalFlags takes -json and -run out of args.
func cutEvalFlags(args []string) (evalFlags, []string, error) {
	var (
		f    evalFlags
		rest []string
	)
	for i := 0; i < len(args); i++ {
		a := strings.TrimPrefix(args[i], "-")
		a = strings.TrimPrefix(a, "-")
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "json":
			f.json = !hasVal || val == "true"
		case "run":
			if !hasVal {
				if i+1 >= len(args) {
					return f, nil, errors.New("-run needs a regular expression")
				}
				i++
				val = args[i]
			}
			re, err := regexp.Compile(val)
			if err != nil {
				return f, nil, fmt.Errorf("-run: %w", err)
			}
			f.run = re
		default:
			rest = append(rest, args[i])
		}
	}
	return f, rest, nil
}

// evalCmd plays nod's classifier cases against the configured endpoint
// and classifier model, and says whether the model is safe for smart mode.
func evalCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	f, args, err := cutEvalFlags(args)
	if err != nil {
		return err
	}
	cfg, rest, err := loadConfig("nod eval", args, getenv, stderr)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q: `nod help eval` lists the flags", rest)
	}
	log := newLogger(cfg, io.Discard) // the report says what matters
	cases, err := eval.Cases()
	if err != nil {
		return err
	}
	// The classifier reads dates from the cases' day, as the agent does.
	clf := newClassifier(cfg, prometheus.NewRegistry(), func() time.Time { return eval.Today }, log)
	rep, err := eval.Run(ctx, cases, eval.Options{Classifier: clf, Model: cfg.ClassifierModel, Timeout: cfg.ClassifierTimeout,
		Run: f.run, Progress: stderr, Log: log, Words: answer.NewReader(formatting.AnswerWords()), Lexicon: formatting.Words})
	if err != nil {
		return err
	}
	// Kept with nod's data, so that nod serve can say at start whether the
	// model it trusts was measured. A whole run only: a subset proves less.
	if f.run == nil {
		if err := recordEval(ctx, cfg, rep, len(cases), log); err != nil {
			fmt.Fprintf(stderr, "nod eval: not recorded in %s: %v\n", cfg.DB, err)
		}
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printReport(stdout, rep)
	}
	if !rep.Safe {
		return ErrUnsafe
	}
	return nil
}

// recordEval keeps the run's totals in the configured database.
func recordEval(ctx context.Context, cfg config, rep eval.Report, cases int, log *slog.Logger) error {
	db := newDB(cfg, time.Now, log)
	if err := db.Open(ctx); err != nil {
		return err
	}
	defer db.Close()
	return db.RecordEval(ctx, nod.EvalRun{Model: rep.Model, At: time.Now(), Cases: cases, Calls: rep.Calls,
		FalseExplicit: rep.FalseExplicit, FalseConfirm: rep.FalseConfirm})
}

// logLastEval says at start what nod eval last found for the classifier
// model smart mode trusts, or warns that it was never measured.
func logLastEval(ctx context.Context, db *storage.DB, model string, log *slog.Logger) {
	e, err := db.LastEval(ctx, model)
	switch {
	case errors.Is(err, nod.ErrNotFound):
		log.Warn("the classifier model was never measured: run `nod eval` before trusting smart mode with it", "classifier_model", model)
	case err != nil:
		log.Warn("last eval", "err", err)
	case e.FalseExplicit > 0:
		log.Warn("the classifier model made false explicits in its last eval: smart mode may apply what nobody asked for", "classifier_model", model,
			"eval_at", e.At.Format(time.DateOnly), "false_explicit", e.FalseExplicit, "calls", e.Calls)
	default:
		log.Info("classifier model measured", "classifier_model", model, "eval_at", e.At.Format(time.DateOnly), "false_explicit", 0, "calls", e.Calls)
	}
}

// printReport writes the report for a person: a line per call, the
// totals, the latency, and the verdict.
func printReport(w io.Writer, r eval.Report) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tcall\twant\tgot\tmodel said\tquote")
	for _, c := range r.Cases {
		if c.Error != "" {
			fmt.Fprintf(tw, "%s\t\t\tERROR\t\t%s\n", c.Name, c.Error)
			continue
		}
		for _, call := range c.Calls {
			flag := ""
			switch {
			case call.Got == eval.Explicit && call.Expect != eval.Explicit:
				flag = "  ← FALSE EXPLICIT"
			case call.Got != call.Expect:
				flag = "  ← miss"
			}
			quote := ""
			if call.Quote != "" {
				mark := "✓"
				if !call.Verified {
					mark = "✗ " + call.Why
				}
				quote = fmt.Sprintf("“%s” %s", cutText(call.Quote, 50), mark)
			} else if call.Why != "" {
				quote = "(" + call.Why + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\n", c.Name, call.Tool, call.Expect, call.Got, call.Model, quote, flag)
		}
		if c.ReadBy != "" {
			want, got, flag := items(c.Items)
			fmt.Fprintf(tw, "%s\tanswer\t%s\t%s\tread by %s\t%s\n", c.Name, want, got, c.ReadBy, flag)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d calls in %d cases: %d right, %d false explicit, %d false confirm; %d invalid quotes, %d errors, %d timeouts\n",
		r.Calls, len(r.Cases), r.Correct, r.FalseExplicit, r.FalseConfirm, r.InvalidQuotes, r.Errors, r.Timeouts)
	if r.Items > 0 {
		fmt.Fprintf(w, "answers in words: %d of %d items decided as the words say\n", r.ItemsRight, r.Items)
	}
	fmt.Fprintf(w, "latency per classifier request: p50 %s, p95 %s (NOD_CLASSIFIER_TIMEOUT %s)\n",
		r.P50.Round(time.Millisecond), r.P95.Round(time.Millisecond), r.Timeout)
	if r.Safe {
		fmt.Fprintf(w, "verdict: %s made no false explicit here; smart mode may trust it (false confirms cost a tap each).\n", r.Model)
	} else {
		fmt.Fprintf(w, "verdict: NOT SAFE for smart mode: %s called %d change(s) explicit that the person did not ask for. Use /mode always, or another classifier model.\n", r.Model, r.FalseExplicit)
	}
}

// items writes an answer case's items as the person's taps would read:
// "✓1 ✗2 ·3" (confirmed, rejected, pending), wanted and got, with a flag
// when an item was decided otherwise than the words say.
func items(its []eval.ItemResult) (want, got, flag string) {
	mark := map[string]string{"confirmed": "✓", "rejected": "✗", "pending": "·"}
	var ws, gs []string
	for _, it := range its {
		g := mark[it.Got]
		if g == "" {
			g = it.Got + " "
		}
		ws, gs = append(ws, fmt.Sprintf("%s%d", mark[it.Expect], it.N)), append(gs, fmt.Sprintf("%s%d", g, it.N))
		switch {
		case it.Got != it.Expect && it.Got != "pending":
			flag = "  ← DECIDED MORE THAN THE WORDS"
		case it.Got != it.Expect && flag == "":
			flag = "  ← miss"
		}
	}
	return strings.Join(ws, " "), strings.Join(gs, " "), flag
}

func cutText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
