// Command nodbench measures nod: scripted scenarios in-process against the
// fake Telegram and LLM servers (real HTTP on loopback, a real SQLite file
// or a PostgreSQL database), printed as one table or as JSON.
//
//	nodbench [-latency 200ms] [-chats 200] [-memchats 10000] [-db postgres://…] [-json]
//	nodbench -transcript      the scenarios' conversations as a person sees them
//
// Token counts are estimates: request and answer bytes ÷ 4.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"text/tabwriter"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "nodbench:", err)
		os.Exit(1)
	}
}

// report is everything one run measured.
type report struct {
	Latency   time.Duration `json:"llm_latency_ns"`
	Scenarios []result      `json:"scenarios"`
	Turns     load          `json:"turns"`
	Taps      load          `json:"confirm_taps"`
	Baseline  load          `json:"baseline_echo"`
	Fraction  float64       `json:"turns_vs_baseline"`
	Memory    load          `json:"memory"`
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
	fs := flag.NewFlagSet("nodbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	latency := fs.Duration("latency", 200*time.Millisecond, "injected latency of every model call in the scenarios")
	chats := fs.Int("chats", 200, "concurrent chats in the load runs")
	memChats := fs.Int("memchats", 10000, "chats with history in the memory run (0 skips it)")
	dsn := fs.String("db", "", "postgres:// URL (default: a SQLite file per run)")
	asJSON := fs.Bool("json", false, "print JSON")
	transcript := fs.Bool("transcript", false, "print each scenario's conversation and nothing else")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the load runs to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rep := report{Latency: *latency}
	for _, sc := range scenarios {
		res := runScenario(sc, *dsn, *latency)
		if len(res.Errors) > 0 {
			return fmt.Errorf("scenario %q: %v", sc.name, res.Errors)
		}
		rep.Scenarios = append(rep.Scenarios, res)
	}
	if *transcript {
		for _, r := range rep.Scenarios {
			fmt.Fprintf(stdout, "=== %s ===\n%s\n", r.Name, r.Transcript)
		}
		return nil
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if rep.Turns, err = turnLoad(*dsn, *chats); err != nil {
		return fmt.Errorf("turn load: %w", err)
	}
	if rep.Taps, err = tapLoad(*dsn, *chats); err != nil {
		return fmt.Errorf("tap load: %w", err)
	}
	if rep.Baseline, err = baselineLoad(*chats); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	rep.Fraction = rep.Turns.PerSecond / rep.Baseline.PerSecond
	if *memChats > 0 {
		if rep.Memory, err = memoryLoad(*dsn, *memChats); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printTable(stdout, rep)
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func printTable(w io.Writer, rep report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "scenario (LLM latency %s)\tagent calls\tclassifier calls\tprompt tok≈\tcompletion tok≈\tmax prompt tok≈\tlatency\tsequential LLM\toverhead\n", rep.Latency)
	for _, r := range rep.Scenarios {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%.3f\n", r.Name, r.AgentCalls, r.ClassifierCalls, r.PromptTokens,
			r.CompletionTokens, r.MaxPromptTokens, ms(r.Latency), r.SequentialLLM, r.Overhead)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "load (no LLM latency)\tchats\tper second\tp50\tp99\n")
	for _, l := range []struct {
		name string
		l    load
	}{{"read-only turns", rep.Turns}, {"confirm taps", rep.Taps}, {"bare go-telegram/bot echo (baseline)", rep.Baseline}} {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\n", l.name, l.l.Chats, l.l.PerSecond, ms(l.l.P50), ms(l.l.P99))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nturns as a fraction of the baseline: %.0f %%\n", 100*rep.Fraction)
	if rep.Memory.Chats > 0 {
		fmt.Fprintf(w, "memory: %d chats with history, %.0f turns/s, peak heap %.1f MiB, peak RSS %.1f MiB\n",
			rep.Memory.Chats, rep.Memory.PerSecond, rep.Memory.PeakHeapMiB, rep.Memory.PeakRSSMiB)
	}
}
