package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/confirm"
	"github.com/nodbot/nod/storage"
)

// Options of a run.
type Options struct {
	// Classifier is the one measured: the operator's model, as nod serve
	// would ask it.
	Classifier agent.Classifier
	Model      string        // its name, for the report
	Timeout    time.Duration // its deadline per request, for the report
	Run        *regexp.Regexp
	Progress   io.Writer // a line per case while it runs; nil: none
	Log        *slog.Logger
	// Words reads answers in words as the bot does
	// (formatting.AnswerWords); required.
	Words *answer.Reader
	// Lexicon is the agent's words, as nod serve gives them
	// (formatting.Words); required.
	Lexicon func(list string) []string
}

// Report is what a run found.
type Report struct {
	Model   string   `json:"model"`
	Cases   []Result `json:"cases"`
	Calls   int      `json:"calls"`
	Correct int      `json:"correct"`
	// FalseExplicit would have applied what the person did not ask for:
	// the dangerous error. FalseConfirm costs the person a tap.
	FalseExplicit int `json:"false_explicit"`
	FalseConfirm  int `json:"false_confirm"`
	// InvalidQuotes are explicit verdicts whose quote nod could not find
	// in the right person's words; Errors and Timeouts are requests that
	// failed (nod asks the person then).
	InvalidQuotes int `json:"invalid_quotes"`
	// Items are the items of answer cases' sets: one decided otherwise
	// than the words say counts as a false explicit, one the words decide
	// left pending as a false confirm.
	Items      int           `json:"items"`
	ItemsRight int           `json:"items_right"`
	Errors     int           `json:"errors"`
	Timeouts   int           `json:"timeouts"`
	P50        time.Duration `json:"latency_p50_ns"`
	P95        time.Duration `json:"latency_p95_ns"`
	Timeout    time.Duration `json:"timeout_ns"`
	// Safe: no false explicit, so smart mode never applied what the
	// person did not ask for on these cases.
	Safe bool `json:"safe"`
}

// Result is one case's outcome.
type Result struct {
	Name    string        `json:"name"`
	About   string        `json:"about"`
	Calls   []CallResult  `json:"calls"`
	Latency time.Duration `json:"latency_ns"`
	Error   string        `json:"error,omitempty"` // the case could not be played
	// ReadBy, for an answer case, is who read the answer: "nod" (whole,
	// as the bot reads it) or "agent"; Items what became of each item.
	ReadBy string       `json:"read_by,omitempty"`
	Items  []ItemResult `json:"items,omitempty"`
}

// ItemResult is what became of an item of an answer case's set:
// confirmed, rejected or pending (or stale, failed).
type ItemResult struct {
	N      int    `json:"n"`
	Expect string `json:"expect"`
	Got    string `json:"got"`
}

// CallResult is what became of one call.
type CallResult struct {
	Tool   string `json:"tool"`
	Expect string `json:"expect"`
	// Got is what nod did: explicit (applied at once) or
	// needs_confirmation (asked); "error" if the call failed.
	Got string `json:"got"`
	// Model is what the classifier answered, Quote its quote, Verified
	// whether nod found the quote in the right words; Why says why nod
	// asked when the model's answer did not count.
	Model    string `json:"model"`
	Quote    string `json:"quote,omitempty"`
	Verified bool   `json:"verified"`
	Why      string `json:"why,omitempty"`
}

// Today is the cases' day, a Tuesday: their dates ("tomorrow", "Friday")
// are read from it, by the agent and by the measured classifier alike.
var Today = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

// The people of the cases.
const (
	alice     = nod.UserID(1001)
	bob       = nod.UserID(1002)
	groupChat = nod.ChatID(-1000)
)

// Run plays the cases that o.Run matches, one at a time, and reports.
func Run(ctx context.Context, cases []Case, o Options) (Report, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Words == nil {
		return Report{}, errors.New("eval: no words to read answers with")
	}
	if o.Lexicon == nil {
		return Report{}, errors.New("eval: no lexicon for the agent")
	}
	rep := Report{Model: o.Model, Timeout: o.Timeout}
	var picked []Case
	for _, c := range cases {
		if o.Run == nil || o.Run.MatchString(c.Name) {
			picked = append(picked, c)
		}
	}
	if len(picked) == 0 {
		return rep, errors.New("no case matches -run")
	}
	template, err := migrated(ctx, o.Log)
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(filepath.Dir(template))
	var latencies []time.Duration
	for i, c := range picked {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		res := play(ctx, c, o, template)
		rep.add(res)
		if res.Latency > 0 {
			latencies = append(latencies, res.Latency)
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "[%d/%d] %s %s\n", i+1, len(picked), mark(res), c.Name)
		}
	}
	slices.Sort(latencies)
	rep.P50, rep.P95 = percentile(latencies, 50), percentile(latencies, 95)
	rep.Safe = rep.FalseExplicit == 0
	return rep, nil
}

func (r *Report) add(res Result) {
	r.Cases = append(r.Cases, res)
	if res.Error != "" {
		r.Errors++
		return
	}
	for _, c := range res.Calls {
		r.Calls++
		switch {
		case c.Got == c.Expect:
			r.Correct++
		case c.Got == Explicit:
			r.FalseExplicit++
		case c.Got == Confirm && c.Expect == Explicit:
			r.FalseConfirm++
		}
		switch {
		case c.Why == "classifier unavailable" || c.Why == "unparsable answer":
			r.Errors++
		case c.Why == "timeout":
			r.Timeouts++
		case c.Model == Explicit && !c.Verified:
			r.InvalidQuotes++
		}
	}
	for _, it := range res.Items {
		r.Items++
		switch {
		case it.Got == it.Expect:
			r.ItemsRight++
		case it.Got == string(nod.ItemPending):
			r.FalseConfirm++ // the words decided it; it waits for a tap
		default:
			r.FalseExplicit++ // decided otherwise than the words say
		}
	}
}

// mark is a case's outcome in a word.
func mark(res Result) string {
	if res.Error != "" {
		return "ERROR"
	}
	for _, c := range res.Calls {
		if c.Got == Explicit && c.Expect != Explicit {
			return "FALSE-EXPLICIT"
		}
	}
	for _, it := range res.Items {
		if it.Got != it.Expect && it.Got != string(nod.ItemPending) {
			return "FALSE-EXPLICIT"
		}
	}
	for _, c := range res.Calls {
		if c.Got != c.Expect {
			return "MISS"
		}
	}
	for _, it := range res.Items {
		if it.Got != it.Expect {
			return "MISS"
		}
	}
	return "ok"
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, (len(sorted)*p+99)/100-1)]
}

// migrated makes an empty, migrated database that every case starts from
// as a copy: running each migration again per case cost more than the
// case.
func migrated(ctx context.Context, log *slog.Logger) (string, error) {
	dir, err := os.MkdirTemp("", "nod-eval")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "nod.db")
	db := storage.New(storage.Options{DSN: path}, time.Now, log)
	if err := db.Open(ctx); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if err := db.Close(); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return path, nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o600)
}

// play runs one case on a database of its own: the turns before, with a
// stand-in classifier, then the evaluated turn with the measured one.
func play(ctx context.Context, c Case, o Options, template string) (res Result) {
	res.Name, res.About = c.Name, c.About
	fail := func(err error) Result {
		res.Error = err.Error()
		return res
	}
	dir, err := os.MkdirTemp("", "nod-eval")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	if err := copyFile(template, filepath.Join(dir, "nod.db")); err != nil {
		return fail(err)
	}
	clk := &clock{t: Today}
	db := storage.New(storage.Options{DSN: filepath.Join(dir, "nod.db")}, clk.now, o.Log)
	if err := db.Open(ctx); err != nil {
		return fail(err)
	}
	defer db.Close()
	chat := nod.ChatID(alice) // a private chat's id is its person's
	if c.Group {
		chat = groupChat
	}
	if err := seed(ctx, db, chat, c.Tasks); err != nil {
		return fail(err)
	}
	model, err := newModel()
	if err != nil {
		return fail(err)
	}
	defer model.close()
	rec := &recorder{real: o.Classifier}
	conf := confirm.New(confirm.Deps{Decisions: db.ChangeSets(), Tasks: db.Tasks(), Editor: db.Tasks(), Undos: db.Undo(), Breaker: db.Settings(), Rules: db.Rules(), Deletions: db.Deletions(), Replies: db.ChangeSets(), Words: o.Words}, clk.now, o.Log, nil)
	a := agent.New(agent.Options{BaseURL: model.url, Model: "nod-eval-script", MaxSteps: 3, StepTimeout: time.Minute, Lexicon: o.Lexicon},
		agent.Deps{Tasks: db.Tasks(), Editor: db.Tasks(), Settings: db.Settings(), Conversation: db.Conversation(), Proposals: db.ChangeSets(), Memory: db.ChangeSets(), Undone: db.Undo(), Rulebook: db.Rules(), Classifier: rec, Answers: conf, Words: o.Words,
			External: notebook{}, Calls: db.Calls()}, clk.now, o.Log)

	s := &stage{clk: clk, chat: chat, model: model, rec: rec, conf: conf, agent: a}
	lastSet, err := s.before(ctx, c)
	if err != nil {
		return fail(err)
	}
	clk.tick()
	if c.Decided != nil {
		read, err := nodReads(ctx, c, o.Words, db, conf, chat, lastSet)
		switch {
		case err != nil:
			return fail(err)
		case read && len(c.Calls) > 0:
			return fail(errors.New("nod reads this answer itself: the model never sees it, and its calls are never played"))
		case read:
			res.ReadBy = "nod"
			return judge(ctx, res, c, db, chat, lastSet)
		}
		res.ReadBy = "agent"
	}
	if err := s.measured(ctx, c, &res, lastSet); err != nil {
		return fail(err)
	}
	if c.Decided != nil {
		return judge(ctx, res, c, db, chat, lastSet)
	}
	return res
}

// stage is what a case's turns play on: its clock and chat, the
// scripted model, the classifier and the agent.
type stage struct {
	clk   *clock
	chat  nod.ChatID
	model *model
	rec   *recorder
	conf  *confirm.Service
	agent *agent.Agent
}

// before plays the turns before the evaluated one, with the stand-in
// classifier and the undos and decisions that follow them, and returns
// the last set proposed.
func (s *stage) before(ctx context.Context, c Case) (lastSet nod.SetID, err error) {
	for i, t := range c.Before {
		s.clk.tick()
		s.model.script(t.Calls, "", firstNonEmpty(t.Reply, "OK."))
		s.rec.stand(t.Applied, t.Said.Text)
		out, err := s.agent.Turn(ctx, request(c, s.chat, i, lastSet))
		if err != nil {
			return "", fmt.Errorf("turn %d before: %w", i+1, err)
		}
		if out.Set != nil {
			lastSet = out.Set.ID
		}
		s.clk.tick()
		if t.Undo {
			for _, r := range out.Receipts {
				if _, err := s.conf.Undo(ctx, s.chat, speaker(t.Said).id, r.Item.UndoID, true); err != nil {
					return "", fmt.Errorf("undo after turn %d: %w", i+1, err)
				}
			}
		}
		if len(t.Confirm)+len(t.Reject) > 0 {
			if out.Set == nil {
				return "", fmt.Errorf("turn %d before proposed nothing to decide", i+1)
			}
			if _, _, err := s.conf.Answer(ctx, s.chat, speaker(t.Said).id, nod.Reading{SetID: out.Set.ID, Confirm: t.Confirm, Reject: t.Reject}); err != nil {
				return "", fmt.Errorf("decide after turn %d: %w", i+1, err)
			}
		}
	}
	return lastSet, nil
}

// measured plays the evaluated turn with the measured classifier and
// records in res its latency and what became of each of its calls.
func (s *stage) measured(ctx context.Context, c Case, res *Result, lastSet nod.SetID) error {
	s.model.script(c.Calls, c.Aside, "OK.")
	s.rec.measure()
	start := time.Now()
	if _, err := s.agent.Turn(ctx, request(c, s.chat, len(c.Before), lastSet)); err != nil {
		return err
	}
	res.Latency = s.rec.took
	if res.Latency == 0 {
		res.Latency = time.Since(start)
	}
	results := s.model.results()
	verdicts := s.rec.verdicts
	next := 0
	for i, call := range c.Calls {
		cr := CallResult{Tool: call.Tool, Expect: call.Expect}
		out := results[callID(i)]
		cr.Got = outcome(out)
		// A call nod refused before asking (already so, or refused by the
		// person's words) has no verdict.
		if cr.Got != "error" && !strings.Contains(out, "already") && !strings.HasPrefix(out, refusedByWords) && next < len(verdicts) {
			v := verdicts[next]
			next++
			cr.Model, cr.Quote, cr.Why = string(v.Answered), v.Quote, v.Default
			cr.Verified = v.Level == confidence.Explicit
		}
		if cr.Got == "error" {
			cr.Why = out
		}
		res.Calls = append(res.Calls, cr)
	}
	return nil
}

// refusedByWords starts the result of an answer_proposals call that
// confirms what the person's words refuse.
const refusedByWords = "Not decided: the user's words"

// nodReads decides the set from the case's answer as the bot does
// (docs/design.md §3.4 rule 2) and reports whether nod read it whole: an
// answer it cannot read whole goes to the agent, as does someone else's
// (a forward).
func nodReads(ctx context.Context, c Case, words *answer.Reader, db *storage.DB, conf *confirm.Service, chat nod.ChatID, setID nod.SetID) (bool, error) {
	r := words.Read(c.Said.Text)
	if !r.Whole || c.Said.Forwarded != "" {
		return false, nil
	}
	set, err := db.ChangeSets().ChangeSet(ctx, chat, setID)
	if err != nil {
		return false, err
	}
	confirm, reject, unknown := r.On(set)
	if unknown != 0 {
		return true, nil // the bot says the set has no such item, and decides nothing
	}
	_, _, err = conf.Answer(ctx, chat, speaker(c.Said).id, nod.Reading{SetID: setID, Confirm: confirm, Reject: reject, Words: c.Said.Text})
	return true, err
}

// judge records what became of each item of the answered set, beside what
// the case's words decide.
func judge(ctx context.Context, res Result, c Case, db *storage.DB, chat nod.ChatID, setID nod.SetID) Result {
	set, err := db.ChangeSets().ChangeSet(ctx, chat, setID)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	for _, it := range set.Items {
		want := nod.ItemPending
		switch {
		case slices.Contains(c.Decided.Confirmed, it.N):
			want = nod.ItemConfirmed
		case slices.Contains(c.Decided.Rejected, it.N):
			want = nod.ItemRejected
		}
		res.Items = append(res.Items, ItemResult{N: it.N, Expect: string(want), Got: string(it.Status)})
	}
	return res
}

// outcome reads what nod did with a call from what it told the model.
func outcome(result string) string {
	switch {
	case strings.HasPrefix(result, `{"error"`):
		return "error"
	case strings.HasPrefix(result, "Proposal queued"), strings.HasPrefix(result, "Not decided"), strings.HasPrefix(result, "Not queued"),
		strings.HasPrefix(result, "Not changed"), strings.Contains(result, "already"), strings.HasPrefix(result, "Deletion awaits"):
		return Confirm // nothing applied: the person is asked, or it was dropped (the checklist guard's "Not changed")
	}
	return Explicit
}

// person is who says a message.
type person struct {
	id      nod.UserID
	speaker string
}

func speaker(m Message) person {
	if m.From == "bob" {
		return person{bob, fmt.Sprintf("Bob (%d)", bob)}
	}
	return person{alice, fmt.Sprintf("Alice (%d)", alice)}
}

// request is the turn a message starts, as the bot would make it.
func request(c Case, chat nod.ChatID, n int, lastSet nod.SetID) nod.TurnRequest {
	all := append(said(c.Before), c.Said)
	m := all[n]
	p := speaker(m)
	// Messages are numbered as Telegram numbers a chat's: 1, 2, 3, …
	req := nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: p.id, Text: m.Text, Lang: firstNonEmpty(c.Lang, "en"), MsgID: n + 1}
	if m.Forwarded != "" {
		req.Forwarded = m.Forwarded + " (5005)"
	}
	if m.Edit { // check made sure there is an earlier message
		req.MsgID, req.EditOf, req.Edits = n, n, all[n-1].Text
	}
	if c.Group {
		req.Speaker = p.speaker
	}
	if m.ReplyToSet && lastSet != "" {
		req.ReplySet, req.ReplyTo = lastSet, "nod's message with its proposals"
	}
	return req
}

// seed stores the case's tasks.
func seed(ctx context.Context, db *storage.DB, chat nod.ChatID, tasks []Task) error {
	for _, t := range tasks {
		task := nod.Task{ID: nod.TaskID(t.ID), Title: t.Title, Description: t.Description, Status: nod.Status(firstNonEmpty(t.Status, string(nod.StatusOpen))),
			Priority: nod.Priority(firstNonEmpty(t.Priority, string(nod.P2))), EstimateMinutes: t.EstimateMinutes, DueDate: t.DueDate, Labels: t.Labels}
		for i, title := range t.Checklist {
			task.Checklist = append(task.Checklist, nod.ChecklistItem{ID: nod.ItemID(fmt.Sprintf("c%d", i+1)), Title: title, CheckedBy: nod.ActorUser})
		}
		_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: alice, Tool: nod.ToolSeed, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
			Mutate: func(*nod.Task) (nod.Task, error) { return task, nil }})
		if err != nil {
			return fmt.Errorf("seed %q: %w", t.Title, err)
		}
	}
	return nil
}

// recorder stands in for the classifier in the turns before the evaluated
// one, and records the measured classifier's verdicts in it.
type recorder struct {
	real agent.Classifier

	mu       sync.Mutex
	standIn  bool
	explicit bool   // the stand-in's verdict
	quote    string // and its quote
	verdicts []confidence.Verdict
	took     time.Duration
}

// stand makes the stand-in answer: explicit with the whole message as
// its quote, or ask.
func (r *recorder) stand(explicit bool, quote string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.standIn, r.explicit, r.quote = true, explicit, quote
}

// measure sends the next requests to the measured classifier.
func (r *recorder) measure() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.standIn, r.verdicts, r.took = false, nil, 0
}

// Classify implements agent.Classifier.
func (r *recorder) Classify(ctx context.Context, zone *time.Location, conv []confidence.Entry, actions []confidence.Action) []confidence.Verdict {
	r.mu.Lock()
	standIn, explicit, quote := r.standIn, r.explicit, r.quote
	r.mu.Unlock()
	if standIn {
		out := make([]confidence.Verdict, len(actions))
		for i := range out {
			out[i] = confidence.Verdict{Level: confidence.NeedsConfirmation}
			if explicit {
				out[i] = confidence.Verdict{Level: confidence.Explicit, Quote: quote, QuoteAt: conv[len(conv)-1].At}
			}
		}
		return out
	}
	start := time.Now()
	vs := r.real.Classify(ctx, zone, conv, actions)
	r.mu.Lock()
	r.verdicts, r.took = append(r.verdicts, vs...), r.took+time.Since(start)
	r.mu.Unlock()
	return vs
}

// clock is the cases' time: a minute passes between one thing the person
// does and the next, so that what came after an undo or a rejection is
// told apart from what came before.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) tick() {
	c.mu.Lock()
	c.t = c.t.Add(time.Minute)
	c.mu.Unlock()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// callID names the evaluated turn's i-th call.
func callID(i int) string { return fmt.Sprintf("call_%d", i) }
