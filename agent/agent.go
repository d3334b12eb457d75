package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/repeat"
	"github.com/nodbot/nod/tools"
	"github.com/nodbot/nod/transport"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure the agent.
type Options struct {
	BaseURL string // OpenAI-compatible endpoint, e.g. http://localhost:11434/v1
	APIKey  string // empty sends no Authorization header
	// MaxRetries retries a failed step (connection errors, 408, 409, 429,
	// 5xx) within its deadline.
	MaxRetries  int
	Model       string
	StepTimeout time.Duration // deadline of one LLM step, retries included
	MaxSteps    int           // LLM steps per turn
	// History is how much of the stored conversation goes back to the
	// model (default 40 messages, its start moving 20 at a time).
	History nod.Window
	// ConfirmWindow is how long a typed confirmation of a deletion waits.
	ConfirmWindow time.Duration
	// MaxConns is how many idle connections to the endpoint are kept
	// (default 256).
	MaxConns int
	// Metrics, if set, receives the agent's metrics.
	Metrics prometheus.Registerer
	// TimeZone serves chats that set no zone of their own (default UTC).
	TimeZone *time.Location
	// Lexicon gives the lists of words with which the agent reads what the
	// person's words cover and name, by name, in every language nod
	// speaks (formatting.Words). Required: New panics without it.
	Lexicon func(list string) []string
}

// Classifier decides which proposed actions the person explicitly asked
// for; see confidence.Classifier. It answers one verdict per action, in
// order, in one request, and never fails: on any problem it answers
// NEEDS_CONFIRMATION.
type Classifier interface {
	Classify(ctx context.Context, zone *time.Location, conv []confidence.Entry, actions []confidence.Action) []confidence.Verdict
}

// Agent runs turns of the conversation between a chat and the model.
type Agent struct {
	answers    Answerer       // passes on decisions stated in words; nil: unavailable
	words      *answer.Reader // reads them as nod's own reader does
	zones      Zones
	cities     Cities
	external   External // nil: no MCP servers
	calls      Calls
	opts       Options
	llm        openai.Client
	tasks      Tasks
	editor     Editor
	settings   Settings
	conv       Conversation
	sets       Proposals
	memory     Memory
	undone     Undone
	rulebook   Rulebook
	classifier Classifier
	now        func() time.Time
	log        *slog.Logger
	lex        *lexicon
	metrics    *metrics
	tools      json.RawMessage // encoded once; see encodeTools
	// bodies keeps request buffers for the next model call: a request is
	// tens of kilobytes (the tools' schemas and the conversation), written
	// afresh on every call of every turn.
	bodies sync.Pool
}

// The agent's defaults, where Options leave them unset.
const (
	DefaultStepTimeout = 60 * time.Second
	DefaultMaxSteps    = 8
)

// New returns an agent talking to the endpoint of opts; now is the clock.
func New(opts Options, d Deps, now func() time.Time, log *slog.Logger) *Agent {
	if opts.StepTimeout <= 0 {
		opts.StepTimeout = DefaultStepTimeout
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.History.Keep <= 0 {
		opts.History = nod.Window{Keep: 40, Step: 20}
	}
	if opts.ConfirmWindow <= 0 {
		opts.ConfirmWindow = nod.DefaultConfirmWindow
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = transport.DefaultMaxConns
	}
	if opts.TimeZone == nil {
		opts.TimeZone = time.UTC
	}
	// No client timeout: it would cut retries short. Each step has its own
	// deadline instead.
	// No admin key: openai-go takes one from OPENAI_ADMIN_KEY, and a plain
	// Post (complete) would send it to the model's endpoint without an
	// API key.
	llm := openai.NewClient(option.WithBaseURL(opts.BaseURL), option.WithAPIKey(opts.APIKey), option.WithAdminAPIKey(""), option.WithMaxRetries(opts.MaxRetries),
		option.WithHTTPClient(transport.Pooled(opts.MaxConns, 0)))
	return &Agent{opts: opts, llm: llm, tasks: d.Tasks, editor: d.Editor, settings: d.Settings, conv: d.Conversation, sets: d.Proposals, memory: d.Memory, undone: d.Undone, rulebook: d.Rulebook,
		classifier: d.Classifier, answers: d.Answers, words: d.Words, zones: d.Zones, cities: d.Cities, external: d.External, calls: d.Calls, now: now, log: log, lex: newLexicon(opts.Lexicon), metrics: newMetrics(opts.Metrics), tools: encodeTools()}
}

// maxPooledBody is the largest request buffer kept for reuse: one grown
// by an unusual conversation goes back to the garbage collector.
const maxPooledBody = 1 << 20

// complete runs one model step within the step deadline, on the
// conversation in parts (the history, then the turn's own messages).
func (a *Agent) complete(ctx context.Context, system string, tools json.RawMessage, parts ...[]nod.ChatMessage) (nod.ChatMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, a.opts.StepTimeout)
	defer cancel()
	start := time.Now()
	buf, _ := a.bodies.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	body := requestBody(buf, a.opts.Model, system, tools, parts...)
	var raw []byte
	// The client's own Post, not Chat.Completions.New: New would encode
	// its (empty) typed parameters on every call before taking these bytes.
	err := a.llm.Post(ctx, "chat/completions", body, &raw, option.WithHeader("Content-Type", "application/json"))
	if err == nil && buf.Cap() <= maxPooledBody {
		// The response has been read and its body closed: net/http is
		// done with the request's.
		a.bodies.Put(buf)
	}
	a.metrics.latency.Observe(time.Since(start).Seconds())
	var resp wireCompletion
	if err == nil {
		if err = jsonv2.Unmarshal(raw, &resp, wireOptions); err != nil {
			err = fmt.Errorf("the answer does not decode: %w", err)
		}
	}
	if err != nil {
		a.metrics.llm.WithLabelValues("error").Inc()
		a.log.Warn("model step failed", "err", err, "duration_ms", time.Since(start).Milliseconds())
		return nod.ChatMessage{}, fmt.Errorf("%w: %w", nod.ErrModel, err)
	}
	if len(resp.Choices) == 0 {
		a.metrics.llm.WithLabelValues("no_choices").Inc()
		return nod.ChatMessage{}, fmt.Errorf("%w: the answer has no choices", nod.ErrModel)
	}
	a.metrics.llm.WithLabelValues("ok").Inc()
	a.metrics.tokens.WithLabelValues("prompt").Add(float64(resp.Usage.PromptTokens))
	a.metrics.tokens.WithLabelValues("completion").Add(float64(resp.Usage.CompletionTokens))
	m := resp.Choices[0].Message
	out := nod.ChatMessage{Role: nod.RoleAssistant, Content: nod.CleanText(m.Content), At: a.now()}
	for i, tc := range m.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", a.now().UnixNano(), i) // some servers omit ids
		}
		out.ToolCalls = append(out.ToolCalls, nod.ToolCall{ID: id, Name: tc.Function.Name, Arguments: arguments(tc.Function.Arguments)})
	}
	return out, nil
}

// taskJSON is a task as the tools return it (the contract's get_task shape).
type taskJSON struct {
	ID              nod.TaskID   `json:"id"`
	Title           string       `json:"title"`
	Description     *string      `json:"description"`
	Status          nod.Status   `json:"status"`
	Priority        nod.Priority `json:"priority"`
	EstimateMinutes *int         `json:"estimate_minutes"`
	DueDate         *string      `json:"due_date"`
	RemindAt        *string      `json:"remind_at"`
	ReminderSent    bool         `json:"reminder_sent,omitempty"`       // the reminder went out: its time passed while the task was open
	ReminderSilent  bool         `json:"reminder_silent,omitempty"`     // the task is closed: its reminder goes off only if it is reopened first
	ReminderClock   string       `json:"reminder_clock,omitempty"`      // remind_at as given in another place's clock, which keeps it there when the chat's zone changes
	ReminderAfter   string       `json:"reminder_after_stay,omitempty"` // the reminder once the chat's stay has ended before it (turn.afterStay)
	Repeat          *string      `json:"repeat"`                        // the reminder's RRULE, or null
	RepeatTime      string       `json:"repeat_time,omitempty"`         // the time of day the rule repeats at, HH:MM
	RepeatZone      string       `json:"repeat_zone,omitempty"`         // the place whose clock the rule keeps; absent: the chat's
	Labels          []string     `json:"labels"`
	Checklist       []itemJSON   `json:"checklist"`
	CreatedAt       *string      `json:"created_at"`           // in the chat's zone: tells tasks of one title apart ("the older one")
	DoneTimes       []string     `json:"done_times,omitempty"` // get_task of a repeating task: its times marked done lately, which its open status does not say
	Notes           []string     `json:"notes,omitempty"`      // elements of the call that were dropped
	Truncated       string       `json:"truncated,omitempty"`  // why a listing shows less of the task
}

type itemJSON struct {
	ID        nod.ItemID `json:"id"`
	Title     string     `json:"title"`
	Checked   bool       `json:"checked"`
	CheckedBy nod.Actor  `json:"checked_by"`
	CheckedAt *string    `json:"checked_at"`
}

// toJSON renders t with its reminder in zone, the chat's, and says when
// that reminder went out already (at now).
func toJSON(t nod.Task, zone *time.Location, now time.Time) taskJSON {
	j := taskJSON{ID: t.ID, Title: t.Title, Status: t.Status, Priority: t.Priority, EstimateMinutes: t.EstimateMinutes,
		Labels: t.Labels, Checklist: make([]itemJSON, 0, len(t.Checklist))}
	if j.Labels == nil {
		j.Labels = []string{}
	}
	if t.Description != "" {
		j.Description = &t.Description
	}
	if t.DueDate != "" {
		j.DueDate = &t.DueDate
	}
	if t.RemindAt != nil {
		s := zoned(*t.RemindAt, zone)
		j.RemindAt, j.ReminderSent, j.ReminderSilent = &s, t.ReminderSent(now), t.ReminderSilent(now)
		if t.RemindClock != nil {
			j.ReminderClock = nod.ReminderValue(*t.RemindAt, t.RemindClock)
		}
	}
	if r := repeat.Show(t.Repeat); r != "" {
		j.Repeat = &r
		if rule, err := repeat.Read(t.Repeat); err == nil {
			j.RepeatTime, j.RepeatZone = rule.Start.Format("15:04"), rule.Zone
		}
	}
	if !t.CreatedAt.IsZero() {
		s := zoned(t.CreatedAt, zone)
		j.CreatedAt = &s
	}
	for _, it := range t.Checklist {
		ij := itemJSON{ID: it.ID, Title: it.Title, Checked: it.Checked, CheckedBy: it.CheckedBy.Normalize()}
		if it.CheckedAt != nil {
			s := it.CheckedAt.UTC().Format(time.RFC3339)
			ij.CheckedAt = &s
		}
		j.Checklist = append(j.Checklist, ij)
	}
	return j
}

// zoned is t in RFC 3339 with zone's offset: "+00:00" in a zone that is
// at UTC's offset then (Lisbon in winter), where "Z" would read as a time
// in UTC; "Z" in UTC itself.
func zoned(t time.Time, zone *time.Location) string {
	if zone == time.UTC {
		return t.UTC().Format(time.RFC3339)
	}
	return t.In(zone).Format("2006-01-02T15:04:05-07:00")
}

// TaskJSON renders a task in the shape get_task returns, its reminder
// in zone as it stands at now.
func TaskJSON(t nod.Task, zone *time.Location, now time.Time) string {
	return string(tools.MustJSON(toJSON(t, zone, now)))
}

func errorJSON(err error) string {
	return string(tools.MustJSON(map[string]string{"error": nod.Detail(err)}))
}
