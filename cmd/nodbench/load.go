package main

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// load is what a concurrent run measured.
type load struct {
	Chats     int           `json:"chats"`
	Ops       int           `json:"ops,omitempty"` // operations measured: Chats at once, in rounds
	PerSecond float64       `json:"per_second"`
	P50       time.Duration `json:"p50_ns"`
	P99       time.Duration `json:"p99_ns"`
	// OwnCPU is the CPU time of the bot under test (nod, or the echo bot)
	// per operation, from a profile split by pprof labels; CPU is the
	// whole run's CPU time by part ("" for the runtime's own).
	OwnCPU time.Duration            `json:"own_cpu_ns_per_op,omitempty"`
	CPU    map[string]time.Duration `json:"cpu_ns_by_part,omitempty"`
	// NewConns counts the TCP connections the fakes accepted per
	// operation: each is a TLS handshake in production.
	NewConns float64 `json:"new_conns_per_op"`
}

// readOnlyLLM answers a read-only question at once: list_tasks, then text.
func readOnlyLLM(r openaitest.Request) openaitest.Response {
	if r.Messages[len(r.Messages)-1].Role != "tool" {
		return openaitest.Calls(openaitest.Call("l", "list_tasks", map[string]string{}))
	}
	return openaitest.Text("You have no tasks yet.")
}

// concurrently runs act for every chat at once and returns each action's
// latency, measured until done(chat) holds.
func concurrently(chats []int64, act func(chat int64), done func(chat int64) bool, wait func(what string, cond func() bool)) []time.Duration {
	lat := make([]time.Duration, len(chats))
	starts := make([]time.Time, len(chats))
	for i, chat := range chats {
		starts[i] = time.Now()
		go act(chat)
	}
	pending := make(map[int]bool, len(chats))
	for i := range chats {
		pending[i] = true
	}
	wait(fmt.Sprintf("%d chats", len(chats)), func() bool {
		for i := range pending {
			if done(chats[i]) {
				lat[i] = time.Since(starts[i])
				delete(pending, i)
			}
		}
		return len(pending) == 0
	})
	return lat
}

// chatRange returns the chat ids from+1 … from+n.
func chatRange(from, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(from + i + 1)
	}
	return out
}

// loadRun is one load run: rounds of Chats operations at once, measured
// under the CPU profiler.
type loadRun struct {
	chats, rounds int
	conns         func() int64 // TCP connections the fakes accepted so far
	round         func(r int) []time.Duration
}

// measure runs the rounds with the bench's own goroutines labeled, so
// that the profile tells the bot's CPU from the fakes' and the bench's.
func (r loadRun) measure() (load, error) {
	var (
		lat   []time.Duration
		total time.Duration
	)
	conns := r.conns()
	split, err := profiled(func() {
		labeled(partBench, func() {
			start := time.Now()
			for i := range r.rounds {
				lat = append(lat, r.round(i)...)
			}
			total = time.Since(start)
		})
	})
	if err != nil {
		return load{}, err
	}
	ops := r.chats * r.rounds
	return load{Chats: r.chats, Ops: ops, PerSecond: float64(ops) / total.Seconds(), P50: percentile(lat, 50), P99: percentile(lat, 99),
		OwnCPU: split.own() / time.Duration(ops), CPU: split, NewConns: float64(r.conns()-conns) / float64(ops)}, nil
}

// conns counts the TCP connections both fakes accepted.
func (e *env) conns() int64 { return e.tg.Wire().Conns() + e.llm.Conns() }

// cpuRun is what the interleaved load run measured.
type cpuRun struct {
	Turns, Taps, Baseline load
	// TurnRatios and TapRatios are each round's own CPU per operation
	// over the echo's per update in the round next to it.
	TurnRatios, TapRatios []float64
}

// A segment kind of the interleaved run.
const (
	segEcho = iota
	segTurn
	segTap
)

// cpuLoad measures nod's own CPU per read-only turn and per confirm tap
// beside a bare go-telegram/bot echo bot's per update, each in a process
// of its own (its CPU time is the kernel's figure for that process),
// with no model latency. The three loads are interleaved a round at a
// time, in an order that turns each round, so that whatever else the
// machine does falls on all three alike, and every round gives a ratio:
// n chats at once, rounds times. Read-only turns repeat in the same chats,
// so later ones carry history; taps press ✓ 1 on a pending set in chats
// of their own each round.
func cpuLoad(dsn string, n, rounds int, profile string) (cpuRun, error) {
	var out cpuRun
	r := &reporter{}
	defer r.close()
	dsn, err := benchDSN(r, dsn)
	if err != nil {
		return out, err
	}
	tg, llm, echoTG := telegramtest.New(r), openaitest.New(r), telegramtest.New(r)
	var prepared atomic.Bool
	llm.Handle(func(q openaitest.Request) openaitest.Response {
		if prepared.Load() {
			return readOnlyLLM(q)
		}
		if q.Model == clfModel {
			return openaitest.Text(`{"actions":[]}`)
		}
		if len(q.ToolResults()) == 0 {
			return openaitest.Calls(openaitest.Call("c", "create_task", map[string]string{"title": "Buy milk"}))
		}
		return openaitest.Text("Add it?")
	})
	// Turns in chats 1..n; taps in chats n+1.., n of them a round.
	nod, err := spawn(r, kindNod, tg.URL, llm.URL, dsn, n+n*rounds)
	if err != nil {
		return out, err
	}
	echo, err := spawn(r, kindEcho, echoTG.URL, "", "", 0)
	if err != nil {
		return out, err
	}
	for i := range rounds {
		for _, chat := range chatRange(n+i*n, n) {
			tg.SendText(chat, chat, "add a task Buy milk")
		}
		tg.Wait("the sets", func() bool { return tg.TotalBotMessages() >= 2*n*(i+1) })
	}
	prepared.Store(true)
	if profile != "" {
		if _, err := nod.ask(cmdProfile + " " + profile); err != nil {
			return out, err
		}
	}
	segs := cpuSegments(nod, echo, tg, echoTG, llm, n)
	if err := interleave(&segs, rounds); err != nil {
		return out, err
	}
	if profile != "" {
		if _, err := nod.ask(cmdProfiled); err != nil {
			return out, err
		}
	}
	out.Baseline, out.Turns, out.Taps = segs[segEcho].measured(n, rounds), segs[segTurn].measured(n, rounds), segs[segTap].measured(n, rounds)
	for i := range rounds {
		echoCPU := float64(segs[segEcho].cpu[i])
		out.TurnRatios = append(out.TurnRatios, ratio(float64(segs[segTurn].cpu[i]), echoCPU))
		out.TapRatios = append(out.TapRatios, ratio(float64(segs[segTap].cpu[i]), echoCPU))
	}
	return out, firstErr(r)
}

// segment is one of the interleaved loads: its process, its round, and
// what its rounds measured so far.
type segment struct {
	proc  *child
	conns func() int64
	round func(i int) []time.Duration
	cpu   []time.Duration
	lat   []time.Duration
	conn  int64
	wall  time.Duration
}

// cpuSegments makes the three loads: echo updates and read-only turns in
// chats 1..n, and in round i taps on the sets of chats n+i*n+1...
func cpuSegments(nod, echo *child, tg, echoTG *telegramtest.Server, llm *openaitest.Server, n int) [3]segment {
	turnChats := chatRange(0, n)
	var ids sync.Map // chat → callback query id
	return [3]segment{
		segEcho: {proc: echo, conns: echoTG.Wire().Conns, round: func(i int) []time.Duration {
			return concurrently(turnChats, func(chat int64) { echoTG.SendText(chat, chat, "echo") },
				func(chat int64) bool { return len(echoTG.BotMessages(chat)) > i }, echoTG.Wait)
		}},
		segTurn: {proc: nod, conns: func() int64 { return tg.Wire().Conns() + llm.Conns() }, round: func(i int) []time.Duration {
			return concurrently(turnChats, func(chat int64) { tg.SendText(chat, chat, "what's on my list?") },
				func(chat int64) bool { return len(tg.BotMessages(chat)) > i }, tg.Wait)
		}},
		segTap: {proc: nod, conns: func() int64 { return tg.Wire().Conns() + llm.Conns() }, round: func(i int) []time.Duration {
			return concurrently(chatRange(n+i*n, n), func(chat int64) {
				msgs := tg.BotMessages(chat)
				set := msgs[len(msgs)-1]
				b, _ := set.Button("✓ 1")
				ids.Store(chat, tg.Press(chat, chat, set.ID, b.Data))
			}, func(chat int64) bool {
				id, ok := ids.Load(chat)
				if !ok {
					return false
				}
				_, answered := tg.Answer(id.(string))
				return answered
			}, tg.Wait)
		}},
	}
}

// interleave runs the segments' rounds, a round of each at a time in an
// order that turns each round, and takes each one's process CPU time.
func interleave(segs *[3]segment, rounds int) error {
	for i := range rounds {
		for k := range 3 {
			s := &segs[(i+k)%3]
			before, err := s.proc.ask(cmdUsage)
			if err != nil {
				return err
			}
			conns, start := s.conns(), time.Now()
			s.lat = append(s.lat, s.round(i)...)
			after, err := s.proc.ask(cmdUsage) // once what the round started has ended
			if err != nil {
				return err
			}
			s.wall += time.Since(start)
			s.conn += s.conns() - conns
			s.cpu = append(s.cpu, after.CPU-before.CPU)
		}
	}
	return nil
}

// measured sums up what the segment's rounds of n chats measured.
func (s segment) measured(n, rounds int) load {
	var cpu time.Duration
	for _, d := range s.cpu {
		cpu += d
	}
	ops := n * rounds
	return load{Chats: n, Ops: ops, PerSecond: float64(ops) / s.wall.Seconds(), P50: percentile(s.lat, 50), P99: percentile(s.lat, 99),
		OwnCPU: cpu / time.Duration(ops), NewConns: float64(s.conn) / float64(ops)}
}

// memoryLoad runs one read-only turn in each of n chats, batch chats at
// once, so that every chat has history, with nod in its own process, and
// reports nod's heap and resident memory: fresh, at their peak, the
// heap's peak in the first and in the last fifth of the batches, and
// idle after the run.
// heapProfile, if set, names the file for nod's heap profile once idle.
func memoryLoad(dsn string, n int, heapProfile string) (memory, error) {
	out := memory{Chats: n, Batch: min(n, memBatch)}
	r := &reporter{}
	defer r.close()
	dsn, err := benchDSN(r, dsn)
	if err != nil {
		return out, err
	}
	tg, llm := telegramtest.New(r), openaitest.New(r)
	llm.Handle(readOnlyLLM)
	nod, err := spawn(r, kindNod, tg.URL, llm.URL, dsn, n)
	if err != nil {
		return out, err
	}
	fresh, err := nod.ask(cmdIdle)
	if err != nil {
		return out, err
	}
	out.FreshHeapMiB, out.FreshRSSMiB = mib(fresh.HeapInuse), mib(fresh.RSS)
	if _, err := nod.ask(cmdWatch); err != nil {
		return out, err
	}
	start := time.Now()
	var peaks []uint64 // the peak heap of each batch
	for i := 1; i <= n; i += memBatch {
		for c := i; c < i+memBatch && c <= n; c++ {
			tg.SendText(int64(c), int64(c), "what's on my list?")
		}
		tg.Wait("a batch of chats", func() bool { return tg.TotalBotMessages() >= min(i+memBatch-1, n) })
		u, err := nod.ask(cmdWatch)
		if err != nil {
			return out, err
		}
		peaks = append(peaks, u.PeakHeap)
	}
	out.PerSecond = float64(n) / time.Since(start).Seconds()
	idle, err := nod.ask(cmdIdle)
	if err != nil {
		return out, err
	}
	out.PeakHeapMiB, out.PeakRSSMiB = mib(slices.Max(peaks)), mib(idle.PeakRSS)
	out.IdleHeapMiB, out.IdleRSSMiB = mib(idle.HeapInuse), mib(idle.RSS)
	if heapProfile != "" {
		if _, err := nod.ask(cmdHeap + " " + heapProfile); err != nil {
			return out, err
		}
	}
	// Bounded by the chats in flight, the first fifth of the batches
	// peaks as high as the last.
	k := max(1, len(peaks)/5)
	out.FirstPeakHeapMiB, out.LastPeakHeapMiB = mib(slices.Max(peaks[:k])), mib(slices.Max(peaks[len(peaks)-k:]))
	return out, firstErr(r)
}

// memBatch is how many chats the memory run has in flight at once, so
// that it is bounded by nod, not by goroutines of the fake.
const memBatch = 500

// memory is nod's own memory in the memory run, in MiB.
type memory struct {
	Chats     int     `json:"chats"`
	Batch     int     `json:"chats_at_once"`
	PerSecond float64 `json:"per_second"`
	// Fresh is nod started and idle, before any chat; Idle is nod after
	// the run, once its turns ended and garbage was collected.
	FreshHeapMiB float64 `json:"fresh_heap_mib"`
	FreshRSSMiB  float64 `json:"fresh_rss_mib"`
	PeakHeapMiB  float64 `json:"peak_heap_mib"`
	PeakRSSMiB   float64 `json:"peak_rss_mib"`
	IdleHeapMiB  float64 `json:"idle_heap_mib"`
	IdleRSSMiB   float64 `json:"idle_rss_mib"`
	// FirstPeakHeapMiB is the peak heap over the run's first fifth of
	// chats, LastPeakHeapMiB over its last fifth: alike when the peak is
	// bounded by the chats in flight rather than by the chats that exist.
	FirstPeakHeapMiB float64 `json:"first_fifth_peak_heap_mib"`
	LastPeakHeapMiB  float64 `json:"last_fifth_peak_heap_mib"`
}

func firstErr(r *reporter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) > 0 {
		return fmt.Errorf("%s", r.errs[0])
	}
	return nil
}
