package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/google/pprof/profile"
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
	NewConns    float64 `json:"new_conns_per_op"`
	PeakHeapMiB float64 `json:"peak_heap_mib,omitempty"`
	PeakRSSMiB  float64 `json:"peak_rss_mib,omitempty"`
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
func (r loadRun) measure() (load, *profile.Profile, error) {
	var (
		lat   []time.Duration
		total time.Duration
	)
	conns := r.conns()
	split, prof, err := profiled(func() {
		labeled(partBench, func() {
			start := time.Now()
			for i := range r.rounds {
				lat = append(lat, r.round(i)...)
			}
			total = time.Since(start)
		})
	})
	if err != nil {
		return load{}, nil, err
	}
	ops := r.chats * r.rounds
	return load{Chats: r.chats, Ops: ops, PerSecond: float64(ops) / total.Seconds(), P50: percentile(lat, 50), P99: percentile(lat, 99),
		OwnCPU: split.own() / time.Duration(ops), CPU: split, NewConns: float64(r.conns()-conns) / float64(ops)}, prof, nil
}

// withEnv runs fn on nod started fresh with users allowed, and adds the
// first error the fakes reported.
func withEnv(dsn string, users int, fn func(e *env) (load, *profile.Profile, error)) (load, *profile.Profile, error) {
	r := &reporter{}
	defer r.close()
	e, err := start(r, dsn, users, 0)
	if err != nil {
		return load{}, nil, err
	}
	l, prof, err := fn(e)
	if err != nil {
		return l, prof, err
	}
	return l, prof, firstErr(r)
}

// conns counts the TCP connections both fakes accepted.
func (e *env) conns() int64 { return e.tg.Conns() + e.llm.Conns() }

// turnLoad measures read-only turns of n chats at once, rounds times,
// with no model latency: nod's own cost per turn. Each round is one more
// turn in the same chats, so later turns carry history.
func turnLoad(dsn string, n, rounds int) (load, *profile.Profile, error) {
	return withEnv(dsn, n, func(e *env) (load, *profile.Profile, error) {
		e.llm.Handler = readOnlyLLM
		chats := chatRange(0, n)
		return loadRun{chats: n, rounds: rounds, conns: e.conns, round: func(r int) []time.Duration {
			return concurrently(chats, func(chat int64) { e.tg.SendText(chat, chat, "what's on my list?") },
				func(chat int64) bool { return len(e.tg.BotMessages(chat)) > r }, e.tg.Wait)
		}}.measure()
	})
}

// tapLoad measures confirm taps: n chats at once each tap ✓ 1 on their
// pending set, rounds times, in chats of their own each round.
func tapLoad(dsn string, n, rounds int) (load, *profile.Profile, error) {
	return withEnv(dsn, n*rounds, func(e *env) (load, *profile.Profile, error) {
		e.llm.Handler = func(q openaitest.Request) openaitest.Response {
			if q.Model == clfModel {
				return openaitest.Text(`{"actions":[]}`)
			}
			if len(q.ToolResults()) == 0 {
				return openaitest.Calls(openaitest.Call("c", "create_task", map[string]string{"title": "Buy milk"}))
			}
			return openaitest.Text("Add it?")
		}
		for r := range rounds {
			for _, chat := range chatRange(r*n, n) {
				e.tg.SendText(chat, chat, "add a task Buy milk")
			}
			e.tg.Wait("the sets", func() bool { return e.tg.TotalBotMessages() >= 2*n*(r+1) })
		}
		var ids sync.Map // chat → callback query id
		return loadRun{chats: n, rounds: rounds, conns: e.conns, round: func(r int) []time.Duration {
			return concurrently(chatRange(r*n, n), func(chat int64) {
				msgs := e.tg.BotMessages(chat)
				set := msgs[len(msgs)-1]
				b, _ := set.Button("✓ 1")
				ids.Store(chat, e.tg.Press(chat, chat, set.ID, b.Data))
			}, func(chat int64) bool {
				id, ok := ids.Load(chat)
				if !ok {
					return false
				}
				_, answered := e.tg.Answer(id.(string))
				return answered
			}, e.tg.Wait)
		}}.measure()
	})
}

// baselineLoad is the same load on a bare go-telegram/bot echo handler
// and the same fake: what the library and the fake cost without nod.
func baselineLoad(n, rounds int) (load, *profile.Profile, error) {
	r := &reporter{}
	defer r.close()
	var tg *telegramtest.Server
	labeled(partFake, func() { tg = telegramtest.New(r) })
	var (
		b   *tgbot.Bot
		err error
	)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	labeled(partNod, func() {
		b, err = tgbot.New(telegramtest.Token, tgbot.WithServerURL(tg.URL), tgbot.WithHTTPClient(5*time.Second, &http.Client{Timeout: 20 * time.Second}),
			tgbot.WithDefaultHandler(func(ctx context.Context, b *tgbot.Bot, u *models.Update) {
				if u.Message != nil {
					b.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: u.Message.Chat.ID, Text: u.Message.Text})
				}
			}))
		if err == nil {
			go func() { b.Start(ctx); close(done) }()
		}
	})
	if err != nil {
		cancel()
		return load{}, nil, err
	}
	defer func() { cancel(); <-done }()
	chats := chatRange(0, n)
	l, prof, err := loadRun{chats: n, rounds: rounds, conns: tg.Conns, round: func(round int) []time.Duration {
		return concurrently(chats, func(chat int64) { tg.SendText(chat, chat, "echo") },
			func(chat int64) bool { return len(tg.BotMessages(chat)) > round }, tg.Wait)
	}}.measure()
	if err != nil {
		return l, prof, err
	}
	return l, prof, firstErr(r)
}

// memoryLoad runs one read-only turn in each of n chats, so that every
// chat has history, and reports the peak heap and resident memory.
func memoryLoad(dsn string, n int) (load, error) {
	l, _, err := withEnv(dsn, n, func(e *env) (load, *profile.Profile, error) {
		e.llm.Handler = readOnlyLLM
		var (
			peak uint64
			mu   sync.Mutex
			stop = make(chan struct{})
		)
		go func() {
			t := time.NewTicker(20 * time.Millisecond)
			defer t.Stop()
			var ms runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					runtime.ReadMemStats(&ms)
					mu.Lock()
					peak = max(peak, ms.HeapInuse)
					mu.Unlock()
				}
			}
		}()
		start := time.Now()
		const batch = 500 // chats at once, so the run is bounded by nod, not by goroutines of the fake
		for i := 1; i <= n; i += batch {
			for c := i; c < i+batch && c <= n; c++ {
				e.tg.SendText(int64(c), int64(c), "what's on my list?")
			}
			e.tg.Wait("a batch of chats", func() bool { return e.tg.TotalBotMessages() >= min(i+batch-1, n) })
		}
		total := time.Since(start)
		close(stop)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms) // a short run may end before the first tick
		mu.Lock()
		defer mu.Unlock()
		peak = max(peak, ms.HeapInuse)
		return load{Chats: n, PerSecond: float64(n) / total.Seconds(), PeakHeapMiB: float64(peak) / (1 << 20), PeakRSSMiB: peakRSS()}, nil, nil
	})
	return l, err
}

// peakRSS reads the process's high-water resident memory (Linux).
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func firstErr(r *reporter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) > 0 {
		return fmt.Errorf("%s", r.errs[0])
	}
	return nil
}
