package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodbot/nod/fixtures/telegramtest"
)

// The load and memory runs put the bot under test (nod, or the bare echo
// bot) in a process of its own, the same executable started again with
// childEnv set, so that its CPU time and memory are the kernel's and the
// runtime's figures for that process: nothing shared with the fakes and
// the bench, nothing estimated. The bench drives it by lines on its
// standard input and reads a usage line back for each.
const (
	childEnv    = "NODBENCH_CHILD" // "nod" or "echo"
	childTG     = "NODBENCH_TG"    // the fake Telegram's URL
	childLLM    = "NODBENCH_LLM"   // the fake model's URL
	childDSN    = "NODBENCH_DSN"   // nod's database
	childUsers  = "NODBENCH_USERS" // users 1..n are allowed
	kindNod     = "nod"
	kindEcho    = "echo"
	cmdUsage    = "usage"   // settle, then report
	cmdIdle     = "idle"    // settle, collect garbage, return memory to the OS, then report
	cmdWatch    = "watch"   // report the peak heap since the last watch, then track it afresh
	cmdProfile  = "profile" // start a CPU profile into the file named after it, and an allocation profile beside it
	cmdProfiled = "profiled"
	cmdHeap     = "heap" // collect garbage, then write a heap profile into the file named after it
)

// usage is what the child reports of itself.
type usage struct {
	// CPU is the process's user and system time since it started.
	CPU time.Duration `json:"cpu_ns"`
	// HeapInuse is the heap's in-use spans now; PeakHeap the most seen
	// since the last watch (sampled every 10 ms).
	HeapInuse uint64 `json:"heap_inuse"`
	PeakHeap  uint64 `json:"peak_heap"`
	// RSS and PeakRSS are the resident memory now and its high-water
	// mark, in bytes.
	RSS     uint64 `json:"rss"`
	PeakRSS uint64 `json:"peak_rss"`
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// isChild reports whether this process is a bench's child.
func isChild() bool { return os.Getenv(childEnv) != "" }

// childMain runs the bot the environment names until its standard input
// closes, answering each command line with a usage line.
func childMain(stdin io.Reader, stdout io.Writer) error {
	r := &reporter{}
	defer r.close()
	var settle func() // waits until the bot has nothing in flight
	switch kind := os.Getenv(childEnv); kind {
	case kindNod:
		users, _ := strconv.Atoi(os.Getenv(childUsers))
		n, err := openNod(r, os.Getenv(childTG), os.Getenv(childLLM), os.Getenv(childDSN), users)
		if err != nil {
			return err
		}
		settle = func() { waitInFlight(n.reg) }
	case kindEcho:
		var err error
		if settle, err = startEcho(r, os.Getenv(childTG)); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s=%q: want %s or %s", childEnv, kind, kindNod, kindEcho)
	}
	var peak peakHeap
	defer peak.stop()
	in := bufio.NewScanner(stdin)
	enc := json.NewEncoder(stdout)
	var allocs string // the allocation profile the CPU profile's end writes
	for in.Scan() {
		cmd, arg, _ := strings.Cut(in.Text(), " ")
		switch cmd {
		case cmdUsage:
			settle()
		case cmdIdle:
			settle()
			runtime.GC()
			debug.FreeOSMemory()
		case cmdWatch:
			if err := enc.Encode(selfUsage(peak.get())); err != nil {
				return err
			}
			peak.start()
			continue
		case cmdProfile:
			f, err := os.Create(arg)
			if err != nil {
				return err
			}
			defer f.Close()
			// What was allocated before the rounds, taken off what was
			// allocated at their end: pprof -diff_base FILE.allocs0 FILE.allocs.
			if err := writeProfile("allocs", arg+".allocs0"); err != nil {
				return err
			}
			allocs = arg + ".allocs"
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
		case cmdProfiled:
			pprof.StopCPUProfile()
			if err := writeProfile("allocs", allocs); err != nil {
				return err
			}
		case cmdHeap:
			runtime.GC()
			if err := writeProfile("heap", arg); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown command %q", cmd)
		}
		if err := enc.Encode(selfUsage(peak.get())); err != nil {
			return err
		}
	}
	return in.Err()
}

// startEcho runs a bare go-telegram/bot echo bot on the fake at tgURL,
// with the library's HTTP defaults: what the library and the fake cost
// without nod. settle waits until no handler runs, so that reading the
// answer to its last sendMessage counts too, as nod's does.
func startEcho(r *reporter, tgURL string) (settle func(), err error) {
	var inFlight atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	b, err := tgbot.New(telegramtest.Token, tgbot.WithServerURL(tgURL), tgbot.WithHTTPClient(5*time.Second, &http.Client{Timeout: 20 * time.Second}),
		tgbot.WithDefaultHandler(func(ctx context.Context, b *tgbot.Bot, u *models.Update) {
			inFlight.Add(1)
			defer inFlight.Add(-1)
			if u.Message != nil {
				b.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: u.Message.Chat.ID, Text: u.Message.Text})
			}
		}))
	if err != nil {
		cancel()
		return nil, err
	}
	done := make(chan struct{})
	go func() { b.Start(ctx); close(done) }()
	r.Cleanup(func() { cancel(); <-done })
	return func() {
		for inFlight.Load() > 0 {
			time.Sleep(time.Millisecond)
		}
	}, nil
}

// waitInFlight waits until no message or press is being handled: the
// writes after a turn's reply and a tap's edit belong to the operation.
func waitInFlight(reg *prometheus.Registry) {
	for gauge(reg, "nod_messages_in_flight")+gauge(reg, "nod_presses_in_flight") > 0 {
		time.Sleep(time.Millisecond)
	}
}

// gauge reads a gauge of reg's, 0 if it has none.
func gauge(reg *prometheus.Registry, name string) float64 {
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				return m.GetGauge().GetValue()
			}
		}
	}
	return 0
}

// selfUsage reads this process's CPU time and memory.
func selfUsage(peak uint64) usage {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	u := usage{CPU: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), HeapInuse: ms.HeapInuse, PeakHeap: max(peak, ms.HeapInuse)}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				u.RSS = kb << 10
			case "VmHWM:":
				u.PeakRSS = kb << 10
			}
		}
	}
	return u
}

// peakHeap tracks the most heap in use, once started.
type peakHeap struct {
	mu   sync.Mutex
	peak uint64
	quit chan struct{}
	done chan struct{}
}

// start starts tracking, or starts afresh.
func (p *peakHeap) start() {
	p.mu.Lock()
	p.peak = 0
	p.mu.Unlock()
	if p.quit != nil {
		return
	}
	p.quit, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				p.mu.Lock()
				p.peak = max(p.peak, ms.HeapInuse)
				p.mu.Unlock()
			}
		}
	}()
}

func (p *peakHeap) get() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}

func (p *peakHeap) stop() {
	if p.quit != nil {
		close(p.quit)
		<-p.done
	}
}

// child is a bot under test running in its own process.
type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// spawn starts a child of kind on the fakes at tgURL and llmURL (nod's
// database at dsn, users 1..users allowed); r's cleanups stop it.
func spawn(r *reporter, kind, tgURL, llmURL, dsn string, users int) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+kind, childTG+"="+tgURL, childLLM+"="+llmURL, childDSN+"="+dsn, childUsers+"="+strconv.Itoa(users))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", kind, err)
	}
	c := &child{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	r.Cleanup(func() { c.stop() })
	// The first answer says the bot is up.
	if _, err := c.ask(cmdUsage); err != nil {
		return nil, fmt.Errorf("start %s: %w", kind, err)
	}
	return c, nil
}

// ask sends a command and returns the child's usage after it.
func (c *child) ask(cmd string) (usage, error) {
	var u usage
	if _, err := fmt.Fprintln(c.in, cmd); err != nil {
		return u, fmt.Errorf("%s: %w", cmd, err)
	}
	if !c.out.Scan() {
		return u, fmt.Errorf("%s: the child ended: %v", cmd, c.out.Err())
	}
	return u, json.Unmarshal(c.out.Bytes(), &u)
}

// stop closes the child's input, which stops it, and waits for it.
func (c *child) stop() error {
	if c.in == nil {
		return nil
	}
	c.in.Close()
	c.in = nil
	return c.cmd.Wait()
}

// writeProfile writes the runtime's profile name to the file path.
func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = pprof.Lookup(name).WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
