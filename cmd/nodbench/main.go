// Command nodbench measures nod: scripted scenarios in-process against the
// fake Telegram and LLM servers (real HTTP on loopback, a real SQLite file
// or a PostgreSQL database), printed as one table or as JSON.
//
//	nodbench [-latency 200ms] [-rtt 50ms] [-chats 200] [-rounds 20] [-memchats 10000] [-sizes 100,1000,10000] [-db postgres://…] [-json]
//	nodbench -transcript      the scenarios' conversations as a person sees them
//	nodbench -sizesonly       only the size axis: a turn, a tap and /today with 100, 1,000 and 10,000 tasks in the chat
//	nodbench -reminders 10000 [-repeating 10000] [-replicas 2 -db postgres://…]   reminders due at once, each fired once
//
// The headline is nod's own CPU per read-only turn and per confirm tap
// beside a bare go-telegram/bot echo bot's per update, from the same run:
// the load runs are profiled, and pprof labels tell nod's goroutines from
// the fakes' and the bench's. Token counts are estimates: request and
// answer bytes ÷ 4.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	if isChild() {
		if err := childMain(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "nodbench child:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "nodbench:", err)
		os.Exit(1)
	}
}

// report is everything one run measured.
type report struct {
	// The headline: own CPU per operation, in microseconds.
	TurnCPU     float64 `json:"own_cpu_us_per_turn"`
	TapCPU      float64 `json:"own_cpu_us_per_tap"`
	BaselineCPU float64 `json:"baseline_cpu_us_per_update"`
	// TurnRatio and TapRatio are the run's own CPU per operation over
	// the echo's per update; ByRound how they spread over its rounds.
	TurnRatio        float64 `json:"turn_vs_echo"`
	TapRatio         float64 `json:"tap_vs_echo"`
	TurnRatioByRound spread  `json:"turn_vs_echo_by_round"`
	TapRatioByRound  spread  `json:"tap_vs_echo_by_round"`
	// StablePrompt is the share of a turn's first agent prompt that
	// repeats a prefix of the turn before (prompt caching reuses it).
	StablePrompt float64       `json:"stable_prompt_pct"`
	Prompts      prompts       `json:"agent_prompts"`
	Latency      time.Duration `json:"llm_latency_ns"`
	RoundTrip    time.Duration `json:"telegram_rtt_ns"`
	Scenarios    []result      `json:"scenarios"`
	Turns        load          `json:"turns"`
	Taps         load          `json:"confirm_taps"`
	Baseline     load          `json:"baseline_echo"`
	Fraction     float64       `json:"turns_vs_baseline"`
	Memory       memory        `json:"memory"`

	// ToReceipt and ToSet are the scenarios' longest times from a
	// person's message to the turn's first receipt, and to its change-set
	// message, reaching Telegram, in units of the injected model latency
	// (-latency).
	ToReceipt float64 `json:"time_to_receipt_model_units"`
	ToSet     float64 `json:"time_to_set_model_units"`

	// Sizes is the size axis: a read-only turn, a confirm tap and
	// /today with more and more tasks in the chat.
	Sizes []sized `json:"sizes,omitempty"`
	// Scheduler is what items due cost: reminders, and daily reviews
	// (each a turn of the agent's), each run on its own.
	Scheduler struct {
		Reminders reminders `json:"reminders"`
		Dailies   reminders `json:"daily_reviews"`
	} `json:"scheduler"`
}

// options are nodbench's flags.
type options struct {
	latency, rtt           time.Duration
	chats, rounds          int
	memChats               int
	dsn                    string
	asJSON, transcript     bool
	cpuProfile, memProfile string
	remind, replicas       int
	repeats                int
	dailies, due           int
	sizeList               string
	sizeChats, sizeRounds  int
	sizesOnly              bool
}

// parseFlags reads nodbench's flags from args; -h prints them to stderr.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("nodbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&o.latency, "latency", 200*time.Millisecond, "injected latency of every model call in the scenarios")
	fs.DurationVar(&o.rtt, "rtt", 50*time.Millisecond, "injected Telegram round trip of every Bot API call in the scenarios")
	fs.IntVar(&o.chats, "chats", 200, "concurrent chats in the load runs")
	fs.IntVar(&o.rounds, "rounds", 20, "rounds of the concurrent chats in each load run")
	fs.IntVar(&o.memChats, "memchats", 10000, "chats with history in the memory run (0 skips it)")
	fs.StringVar(&o.dsn, "db", "", "postgres:// URL (default: a SQLite file per run)")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
	fs.BoolVar(&o.transcript, "transcript", false, "print each scenario's conversation and nothing else")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of nod's process over the load rounds to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write nod's heap profile, once idle after the memory run, to this file")
	fs.IntVar(&o.remind, "reminders", 0, "run only the reminder bench: this many reminders due in the same minute")
	fs.IntVar(&o.replicas, "replicas", 1, "nods sweeping the database in the reminder bench (PostgreSQL for more than one)")
	fs.IntVar(&o.repeats, "repeating", 0, "repeating reminders in the reminder bench, due an hour after the others: fired, then fired again a day on")
	fs.IntVar(&o.dailies, "dailies", 0, "daily reviews due with the reminders in the reminder bench")
	fs.IntVar(&o.due, "due", 200, "reminders, and a quarter as many daily reviews, due at once in the scheduler run (0 skips it)")
	fs.StringVar(&o.sizeList, "sizes", "100,1000,10000", "tasks in the chat for the size axis, comma-separated (empty skips it)")
	fs.IntVar(&o.sizeChats, "sizechats", 10, "concurrent chats in the size axis' runs, each with its tasks")
	fs.IntVar(&o.sizeRounds, "sizerounds", 30, "rounds of turns and of taps in each size")
	fs.BoolVar(&o.sizesOnly, "sizesonly", false, "run the size axis only")
	return o, fs.Parse(args)
}

// parseSizes reads -sizes: numbers of tasks, separated by commas or
// spaces.
func parseSizes(list string) ([]int, error) {
	var sizes []int
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sizes: %q is not a number of tasks", f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

func run(args []string, stdout, stderr io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			f, ok := p.(fatal)
			if !ok {
				panic(p)
			}
			err = fmt.Errorf("%s", f.msg)
		}
	}()
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.remind > 0 || o.repeats > 0 {
		rep, err := reminderBench(o.dsn, o.remind, o.dailies, o.repeats, o.replicas)
		if o.asJSON {
			json.NewEncoder(stdout).Encode(rep)
		} else {
			printReminders(stdout, rep)
		}
		return err
	}
	sizes, err := parseSizes(o.sizeList)
	if err != nil {
		return err
	}
	rep := report{Latency: o.latency, RoundTrip: o.rtt}
	// emit writes the report as JSON, or as tables, printing all only
	// when everything ran.
	emit := func(all bool) error {
		if o.asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		}
		if all {
			printTable(stdout, rep)
		}
		printSizes(stdout, rep.Sizes)
		return nil
	}
	if o.sizesOnly {
		if err := runSizes(&rep, o.dsn, sizes, o.sizeChats, o.sizeRounds); err != nil {
			return err
		}
		return emit(false)
	}
	if err := runScenarios(&rep, o.dsn, o.latency, o.rtt); err != nil {
		return err
	}
	if o.transcript {
		for _, r := range rep.Scenarios {
			fmt.Fprintf(stdout, "=== %s ===\n%s\n", r.Name, r.Transcript)
		}
		return nil
	}
	if err := runLoads(&rep, o); err != nil {
		return err
	}
	if err := runSizes(&rep, o.dsn, sizes, o.sizeChats, o.sizeRounds); err != nil {
		return err
	}
	return emit(true)
}

// runScenarios runs the scenarios into rep.
func runScenarios(rep *report, dsn string, latency, rtt time.Duration) error {
	for _, sc := range scenarios {
		res := runScenario(sc, dsn, latency, rtt)
		if len(res.Errors) > 0 {
			return fmt.Errorf("scenario %q: %v", sc.name, res.Errors)
		}
		rep.Scenarios = append(rep.Scenarios, res)
		rep.Prompts.add(res.Prompt)
		rep.ToReceipt, rep.ToSet = max(rep.ToReceipt, res.ToReceipt), max(rep.ToSet, res.ToSet)
	}
	rep.StablePrompt = rep.Prompts.stablePct()
	return nil
}

// runLoads runs the CPU load, the memory run and the scheduler run into
// rep, as o asks.
func runLoads(rep *report, o options) error {
	profile := o.cpuProfile
	if profile != "" {
		var err error
		if profile, err = filepath.Abs(profile); err != nil {
			return err
		}
	}
	c, err := cpuLoad(o.dsn, o.chats, o.rounds, profile)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	rep.Turns, rep.Taps, rep.Baseline = c.Turns, c.Taps, c.Baseline
	rep.Fraction = rep.Turns.PerSecond / rep.Baseline.PerSecond
	rep.TurnCPU, rep.TapCPU, rep.BaselineCPU = us(rep.Turns.OwnCPU), us(rep.Taps.OwnCPU), us(rep.Baseline.OwnCPU)
	rep.TurnRatio, rep.TapRatio = ratio(rep.TurnCPU, rep.BaselineCPU), ratio(rep.TapCPU, rep.BaselineCPU)
	rep.TurnRatioByRound, rep.TapRatioByRound = spreadOf(c.TurnRatios), spreadOf(c.TapRatios)
	if o.memChats > 0 {
		heap := o.memProfile
		if heap != "" {
			if heap, err = filepath.Abs(heap); err != nil {
				return err
			}
		}
		if rep.Memory, err = memoryLoad(o.dsn, o.memChats, heap); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	if o.due > 0 {
		if rep.Scheduler.Reminders, err = reminderBench(o.dsn, o.due, 0, 0, 1); err != nil {
			return fmt.Errorf("scheduler: %w", err)
		}
		if rep.Scheduler.Dailies, err = reminderBench(o.dsn, 0, max(1, o.due/4), 0, 1); err != nil {
			return fmt.Errorf("scheduler: %w", err)
		}
	}
	return nil
}

// runSizes runs the size axis into rep.
func runSizes(rep *report, dsn string, sizes []int, chats, rounds int) error {
	for _, n := range sizes {
		s, err := sizeLoad(dsn, n, chats, rounds)
		if err != nil {
			return fmt.Errorf("size %d: %w", n, err)
		}
		rep.Sizes = append(rep.Sizes, s)
	}
	return nil
}

// spread is how a ratio varied over a run's rounds.
type spread struct {
	Rounds int     `json:"rounds"`
	Min    float64 `json:"min"`
	P25    float64 `json:"p25"`
	Median float64 `json:"median"`
	P75    float64 `json:"p75"`
	Max    float64 `json:"max"`
}

func spreadOf(xs []float64) spread {
	if len(xs) == 0 {
		return spread{}
	}
	s := slices.Sorted(slices.Values(xs))
	at := func(p float64) float64 { return s[int(p*float64(len(s)-1)+0.5)] }
	return spread{Rounds: len(s), Min: s[0], P25: at(0.25), Median: at(0.5), P75: at(0.75), Max: s[len(s)-1]}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func printTable(w io.Writer, rep report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "own CPU per operation (same run): read-only turn %.0f µs (%.1f× the echo), confirm tap %.0f µs (%.1f× the echo), echo update %.0f µs\n",
		rep.TurnCPU, rep.TurnRatio, rep.TapCPU, rep.TapRatio, rep.BaselineCPU)
	for _, s := range []struct {
		what string
		s    spread
	}{{"turn", rep.TurnRatioByRound}, {"tap", rep.TapRatioByRound}} {
		fmt.Fprintf(w, "  %s ÷ echo over %d rounds: min %.1f×, quartiles %.1f× %.1f× %.1f×, max %.1f×\n", s.what, s.s.Rounds, s.s.Min, s.s.P25, s.s.Median, s.s.P75, s.s.Max)
	}
	fmt.Fprintf(w, "agent prompt: %d tok≈ a call, %.0f %% of a turn's first prompt a stable prefix of the turn before (%d of %d tok≈)\n",
		rep.Prompts.Tokens/max(1, rep.Prompts.Calls), rep.StablePrompt, rep.Prompts.TurnStable, rep.Prompts.TurnTokens)
	fmt.Fprintf(w, "from a message to its turn's first receipt %.2f model latencies, to its change set %.2f (the longest of the scenarios)\n\n", rep.ToReceipt, rep.ToSet)
	fmt.Fprintf(tw, "scenario (LLM latency %s, Telegram round trip %s)\tagent calls\tclassifier calls\tprompt tok≈\tcompletion tok≈\tmax prompt tok≈\tagent prompt tok≈/call\tstable prefix tok≈/call\tlatency\tsequential LLM\tTelegram trips\toverhead\n", rep.Latency, rep.RoundTrip)
	for _, r := range rep.Scenarios {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%.3f\n", r.Name, r.AgentCalls, r.ClassifierCalls, r.PromptTokens,
			r.CompletionTokens, r.MaxPromptTokens, r.Prompt.Tokens/max(1, r.Prompt.Calls), r.Prompt.Stable/max(1, r.Prompt.Calls),
			ms(r.Latency), r.SequentialLLM, r.TelegramTrips, r.Overhead)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "load (no LLM latency)\tchats × rounds\tper second\tp50\tp99\town CPU/op\tnew conns/op\n")
	for _, l := range []struct {
		name string
		l    load
	}{{"read-only turns", rep.Turns}, {"confirm taps", rep.Taps}, {"bare go-telegram/bot echo (baseline)", rep.Baseline}} {
		fmt.Fprintf(tw, "%s\t%d × %d\t%.0f\t%s\t%s\t%.0f µs\t%.2f\n", l.name, l.l.Chats, l.l.Ops/max(1, l.l.Chats), l.l.PerSecond, ms(l.l.P50), ms(l.l.P99), us(l.l.OwnCPU), l.l.NewConns)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nturns as a fraction of the baseline: %.0f %%\n", 100*rep.Fraction)
	if rep.Memory.Chats > 0 {
		m := rep.Memory
		fmt.Fprintf(w, "nod's memory (its own process): %d chats with history, %d at once, %.0f turns/s\n", m.Chats, m.Batch, m.PerSecond)
		fmt.Fprintf(w, "  heap: fresh %.1f MiB, peak %.1f MiB (%.1f MiB over the first fifth of the chats, %.1f MiB over the last), idle after %.1f MiB (+%.1f MiB)\n",
			m.FreshHeapMiB, m.PeakHeapMiB, m.FirstPeakHeapMiB, m.LastPeakHeapMiB, m.IdleHeapMiB, m.IdleHeapMiB-m.FreshHeapMiB)
		fmt.Fprintf(w, "  resident: fresh %.1f MiB, peak %.1f MiB, idle after %.1f MiB\n", m.FreshRSSMiB, m.PeakRSSMiB, m.IdleRSSMiB)
	}
	if s := rep.Scheduler; s.Reminders.N > 0 {
		fmt.Fprintf(w, "scheduler: %.1f statements a reminder due (%d at once), %.1f a daily review due (%d at once, the review's turn included)\n",
			s.Reminders.Statements, s.Reminders.N, s.Dailies.Statements, s.Dailies.Dailies)
	}
}
