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
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// load is what a concurrent run measured.
type load struct {
	Chats       int           `json:"chats"`
	PerSecond   float64       `json:"per_second"`
	P50         time.Duration `json:"p50_ns"`
	P99         time.Duration `json:"p99_ns"`
	PeakHeapMiB float64       `json:"peak_heap_mib,omitempty"`
	PeakRSSMiB  float64       `json:"peak_rss_mib,omitempty"`
}

// readOnlyLLM answers a read-only question at once: list_tasks, then text.
func readOnlyLLM(r openaitest.Request) openaitest.Response {
	if len(r.ToolResults()) == 0 {
		return openaitest.Calls(openaitest.Call("l", "list_tasks", map[string]string{}))
	}
	return openaitest.Text("You have no tasks yet.")
}

// concurrently runs one action per chat 1..n at once and returns each
// action's latency, measured until done(chat) holds.
func concurrently(n int, act func(chat int64), done func(chat int64) bool, wait func(what string, cond func() bool)) ([]time.Duration, time.Duration) {
	lat := make([]time.Duration, n)
	start := time.Now()
	starts := make([]time.Time, n)
	for i := range n {
		starts[i] = time.Now()
		go act(int64(i + 1))
	}
	pending := make(map[int]bool, n)
	for i := range n {
		pending[i] = true
	}
	wait(fmt.Sprintf("%d chats", n), func() bool {
		for i := range pending {
			if done(int64(i + 1)) {
				lat[i] = time.Since(starts[i])
				delete(pending, i)
			}
		}
		return len(pending) == 0
	})
	return lat, time.Since(start)
}

// withEnv runs fn on nod started fresh for n chats, and adds the first
// error the fakes reported.
func withEnv(dsn string, n int, fn func(e *env) load) (load, error) {
	r := &reporter{}
	defer r.close()
	e, err := start(r, dsn, n)
	if err != nil {
		return load{}, err
	}
	l := fn(e)
	return l, firstErr(r)
}

// measured turns per-action latencies over a run of n into a load.
func measured(n int, lat []time.Duration, total time.Duration) load {
	return load{Chats: n, PerSecond: float64(n) / total.Seconds(), P50: percentile(lat, 50), P99: percentile(lat, 99)}
}

// turnLoad measures read-only turns of n chats at once, with no model
// latency: nod's own cost per turn.
func turnLoad(dsn string, n int) (load, error) {
	return withEnv(dsn, n, func(e *env) load {
		e.llm.Handler = readOnlyLLM
		lat, total := concurrently(n, func(chat int64) { e.tg.SendText(chat, chat, "what's on my list?") },
			func(chat int64) bool { return len(e.tg.BotMessages(chat)) >= 1 }, e.tg.Wait)
		return measured(n, lat, total)
	})
}

// tapLoad measures confirm taps: n chats each with a pending set, all
// tapped at once.
func tapLoad(dsn string, n int) (load, error) {
	return withEnv(dsn, n, func(e *env) load {
		e.llm.Handler = func(q openaitest.Request) openaitest.Response {
			if q.Model == clfModel {
				return openaitest.Text(`{"actions":[]}`)
			}
			if len(q.ToolResults()) == 0 {
				return openaitest.Calls(openaitest.Call("c", "create_task", map[string]string{"title": "Buy milk"}))
			}
			return openaitest.Text("Add it?")
		}
		for i := 1; i <= n; i++ {
			e.tg.SendText(int64(i), int64(i), "add a task Buy milk")
		}
		e.tg.Wait("the sets", func() bool { return e.tg.TotalBotMessages() >= 2*n })
		var ids sync.Map // chat → callback query id
		lat, total := concurrently(n, func(chat int64) {
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
		return measured(n, lat, total)
	})
}

// baselineLoad is the same load on a bare go-telegram/bot echo handler
// and the same fake: what the library and the fake cost without nod.
func baselineLoad(n int) (load, error) {
	r := &reporter{}
	defer r.close()
	tg := telegramtest.New(r)
	b, err := tgbot.New(telegramtest.Token, tgbot.WithServerURL(tg.URL), tgbot.WithHTTPClient(5*time.Second, &http.Client{Timeout: 20 * time.Second}),
		tgbot.WithDefaultHandler(func(ctx context.Context, b *tgbot.Bot, u *models.Update) {
			if u.Message != nil {
				b.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: u.Message.Chat.ID, Text: u.Message.Text})
			}
		}))
	if err != nil {
		return load{}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Start(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	lat, total := concurrently(n, func(chat int64) { tg.SendText(chat, chat, "echo") },
		func(chat int64) bool { return len(tg.BotMessages(chat)) >= 1 }, tg.Wait)
	return load{Chats: n, PerSecond: float64(n) / total.Seconds(), P50: percentile(lat, 50), P99: percentile(lat, 99)}, firstErr(r)
}

// memoryLoad runs one read-only turn in each of n chats, so that every
// chat has history, and reports the peak heap and resident memory.
func memoryLoad(dsn string, n int) (load, error) {
	return withEnv(dsn, n, func(e *env) load {
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
		mu.Lock()
		defer mu.Unlock()
		return load{Chats: n, PerSecond: float64(n) / total.Seconds(), PeakHeapMiB: float64(peak) / (1 << 20), PeakRSSMiB: peakRSS()}
	})
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
