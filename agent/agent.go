package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"github.com/prometheus/client_golang/prometheus"
)

// ErrModel marks a turn that failed because the model endpoint did not give
// a usable answer (HTTP errors, timeouts, no choices). Nothing of the turn
// but the person's message is stored.
var ErrModel = errors.New("model unavailable")

// Options configure the agent.
type Options struct {
	BaseURL string // OpenAI-compatible endpoint, e.g. http://localhost:11434/v1
	APIKey  string // empty sends no Authorization header
	// MaxRetries retries a failed step (connection errors, 408, 409, 429,
	// 5xx) within its deadline.
	MaxRetries   int
	Model        string
	StepTimeout  time.Duration // deadline of one LLM step, retries included
	MaxSteps     int           // LLM steps per turn
	HistoryLimit int           // stored messages sent back to the model
	// ConfirmWindow is how long a typed confirmation of a deletion waits.
	ConfirmWindow time.Duration
	// Metrics, if set, receives the agent's metrics.
	Metrics prometheus.Registerer
}

// Classifier decides which proposed actions the person explicitly asked
// for; see confidence.Classifier. It never fails: on any problem it
// answers NEEDS_CONFIRMATION.
type Classifier interface {
	Classify(ctx context.Context, conv []confidence.Entry, actions []confidence.Action) []confidence.Verdict
}

// Agent runs turns of the conversation between a chat and the model.
type Agent struct {
	answers    Answerer // passes on decisions stated in words; nil: unavailable
	opts       Options
	llm        openai.Client
	store      Store
	classifier Classifier
	now        func() time.Time
	log        *slog.Logger
	metrics    *metrics
}

// New returns an agent talking to the endpoint of opts; now is the clock.
func New(opts Options, store Store, classifier Classifier, now func() time.Time, log *slog.Logger) *Agent {
	if opts.StepTimeout <= 0 {
		opts.StepTimeout = 60 * time.Second
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 8
	}
	if opts.HistoryLimit <= 0 {
		opts.HistoryLimit = 40
	}
	if opts.ConfirmWindow <= 0 {
		opts.ConfirmWindow = 10 * time.Minute
	}
	// No client timeout: it would cut retries short. Each step has its own
	// deadline instead.
	llm := openai.NewClient(option.WithBaseURL(opts.BaseURL), option.WithAPIKey(opts.APIKey), option.WithMaxRetries(opts.MaxRetries), option.WithHTTPClient(pooledClient()))
	return &Agent{opts: opts, llm: llm, store: store, classifier: classifier, now: now, log: log, metrics: newMetrics(opts.Metrics)}
}

// Request is one turn's input.
type Request struct {
	ChatID int64
	UserID int64
	Text   string
	// Review makes a proactive turn: the agent looks over the tasks with no
	// request of the person's, and everything it proposes needs confirmation.
	Review bool
	// Revise, if set, is the pending item the person's reply revises.
	Revise *nod.ItemRef
	// ReplySet is the change set whose message the person's message
	// replies to, if it does.
	ReplySet string
	// Lang is the language nod writes to the chat in, for the agent's own
	// replies.
	Lang string
}

// Receipt is a change the turn applied without asking.
type Receipt struct {
	TaskTitle string
	Item      nod.ChangeItem // what changed, with its undo entry
	Quote     string         // the person's words that asked for it
	Mode      nod.Mode       // trusted: applied because the chat trusts the agent
	Rule      *nod.Rule      // the learned rule that applied it, if one did
}

// Result is what a turn produced for the person.
type Result struct {
	Receipts []Receipt      // changes applied at once
	Notices  []nod.Note     // what needed no change, or was left as the person set it
	Text     string         // the agent's final reply; may be empty
	Set      *nod.ChangeSet // proposals to show; nil if none
	// Deletion asks the person to type a task's title to delete it.
	Deletion *nod.PendingDeletion
	// Superseded are the older sets whose items this turn replaced; their
	// messages need refreshing.
	Superseded []string
	// Revised is the set whose item the turn revised in place, if any.
	Revised *nod.ChangeSet
	// Answered are the sets the turn decided items of, in the person's
	// words; Readings wait for the person's tap.
	Answered       []string
	Readings       []nod.Reading
	StepsExhausted bool // the turn was cut at MaxSteps
	Steps          int
}

// reviewInstruction starts a proactive turn. It is nod's instruction, in
// the system prompt: the person's message is only the /review they sent.
const reviewInstruction = "\nThe user sent /review: review their tasks on your own. Look for missing estimates, due dates, priorities or checklist items, stale statuses, and unclear titles. Propose only changes that clearly help; every change you propose is shown to the user for confirmation. Reply in the chat's language.\n"

// Turn runs one turn: the request, then model steps and tool calls until
// the model answers in plain text or MaxSteps is reached. What the turn
// proposes is stored as one change set together with the conversation.
func (a *Agent) Turn(ctx context.Context, req Request) (Result, error) {
	t := &turn{a: a, req: req, started: a.now(), wall: time.Now(), fields: map[string]bool{}, seen: map[string]bool{}}
	settings, err := a.store.ChatSettings(ctx, req.ChatID)
	if err != nil {
		return Result{}, err
	}
	t.mode = settings.Effective(t.started)
	history, err := a.store.History(ctx, req.ChatID, a.opts.HistoryLimit)
	if err != nil {
		return Result{}, err
	}
	var events []nod.Event
	if len(history) > 0 {
		if events, err = a.store.Events(ctx, req.ChatID, history[len(history)-1].At); err != nil {
			return Result{}, err
		}
	}
	history = fromUserMessage(history)
	t.history = history
	system, err := a.systemPrompt(ctx, req.ChatID, req.Lang)
	if err != nil {
		return Result{}, err
	}
	if req.Revise != nil {
		if err := t.loadRevision(ctx); err != nil {
			return Result{}, err
		}
		system += revisionNote(t.revise.item)
	}
	if req.ReplySet != "" {
		if set, err := a.store.ChangeSet(ctx, req.ChatID, req.ReplySet); err == nil {
			var items []string
			for _, it := range set.Items {
				items = append(items, fmt.Sprintf("%d. %s (%s)", it.N, cut(it.Summary), it.Status))
			}
			t.replyItems = strings.Join(items, "; ")
		}
	}
	if len(events) > 0 {
		// What the person did outside the conversation comes first, in
		// order, so that the agent never re-applies what they took back.
		t.msgs = append(t.msgs, nod.ChatMessage{Role: nod.RoleEvent, Content: eventNotes(events), At: t.started})
	}
	user := nod.ChatMessage{Role: nod.RoleUser, Content: req.Text, At: t.started}
	if req.Review {
		user.Content, user.Review = "/review", true
		system += reviewInstruction
	}
	t.msgs = append(t.msgs, user)

	var res Result
	for res.Steps = 1; ; res.Steps++ {
		msg, err := a.complete(ctx, system, append(history, t.msgs...))
		if err != nil {
			// Keep the person's words so the conversation can go on; drop
			// whatever else the failed turn produced.
			if serr := a.store.SaveTurn(ctx, nod.TurnRecord{ChatID: req.ChatID, UserID: req.UserID, Messages: t.msgs[:firstUser(t.msgs)+1]}); serr != nil {
				a.log.Error("save failed turn", "chat", req.ChatID, "err", serr)
			}
			// Changes applied before the failure stand, with their receipts.
			a.metrics.turns.WithLabelValues("model_error").Inc()
			return Result{Receipts: t.receipts}, err
		}
		t.msgs = append(t.msgs, msg)
		if len(msg.ToolCalls) == 0 {
			res.Text = msg.Content
			break
		}
		if s := strings.TrimSpace(msg.Content); s != "" && !slices.Contains(t.asides, s) {
			t.asides = append(t.asides, s) // text beside tool calls reaches the person too
		}
		for i, result := range t.step(ctx, msg.ToolCalls) {
			t.msgs = append(t.msgs, nod.ChatMessage{Role: nod.RoleTool, ToolCallID: msg.ToolCalls[i].ID, Content: result, At: a.now()})
		}
		if res.Steps >= a.opts.MaxSteps {
			res.StepsExhausted = true
			break
		}
	}
	rec := nod.TurnRecord{ChatID: req.ChatID, UserID: req.UserID, Messages: t.msgs, Audit: t.audit, Deletion: t.deletion, Supersede: t.supersede, Readings: t.readings}
	if len(t.items) > 0 {
		rec.Set = &nod.ChangeSet{Items: groupByTask(t.items)}
		if req.Review {
			rec.UserID = 0 // any allowed user of the chat may decide a review's set
		}
	}
	if err := a.store.SaveTurn(ctx, rec); err != nil {
		return Result{}, err
	}
	res.Set, res.Receipts, res.Notices, res.Deletion, res.Revised = rec.Set, t.receipts, t.notices, t.deletion, t.revised
	res.Answered, res.Readings = t.answered, t.readings
	if final := strings.TrimSpace(res.Text); len(t.asides) > 0 {
		if !slices.Contains(t.asides, final) && final != "" {
			t.asides = append(t.asides, final)
		}
		res.Text = strings.Join(t.asides, "\n\n")
	}
	for _, ref := range t.supersede {
		if !slices.Contains(res.Superseded, ref.SetID) {
			res.Superseded = append(res.Superseded, ref.SetID)
		}
	}
	outcome := "answered"
	if res.StepsExhausted {
		outcome = "steps_exhausted"
	}
	a.metrics.turns.WithLabelValues(outcome).Inc()
	a.metrics.proposals.WithLabelValues("queued").Add(float64(len(t.items)))
	a.metrics.proposals.WithLabelValues("applied").Add(float64(len(t.receipts)))
	// Wall time, not the injected clock: this is for the operator.
	a.log.Info("turn", "chat", req.ChatID, "outcome", outcome, "llm_calls", res.Steps+t.classified, "classifier_calls", t.classified,
		"applied", len(t.receipts), "proposed", len(t.items), "duration_ms", time.Since(t.wall).Milliseconds())
	return res, nil
}

// groupByTask orders items task by task, tasks in order of first mention
// and items in call order, so that the set's numbers run on continuously
// under each task's heading.
func groupByTask(items []nod.ChangeItem) []nod.ChangeItem {
	first := map[string]int{}
	for i, it := range items {
		if _, ok := first[it.TaskID]; !ok {
			first[it.TaskID] = i
		}
	}
	out := slices.Clone(items)
	slices.SortStableFunc(out, func(a, b nod.ChangeItem) int { return first[a.TaskID] - first[b.TaskID] })
	return out
}

// fromUserMessage drops leading messages until the first user message, so
// that a cut history never starts with a tool result whose call was cut.
// firstUser is the index of the first user message of msgs.
func firstUser(msgs []nod.ChatMessage) int {
	for i, m := range msgs {
		if m.Role == nod.RoleUser {
			return i
		}
	}
	return 0
}

func fromUserMessage(h []nod.ChatMessage) []nod.ChatMessage {
	for i, m := range h {
		if m.Role == nod.RoleUser {
			return h[i:]
		}
	}
	return nil
}

// complete runs one model step within the step deadline.
func (a *Agent) complete(ctx context.Context, system string, msgs []nod.ChatMessage) (nod.ChatMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, a.opts.StepTimeout)
	defer cancel()
	params := openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(a.opts.Model),
		Messages: toParams(system, msgs),
		Tools:    toolParams(),
	}
	start := time.Now()
	resp, err := a.llm.Chat.Completions.New(ctx, params)
	a.metrics.latency.Observe(time.Since(start).Seconds())
	if err != nil {
		a.metrics.llm.WithLabelValues("error").Inc()
		a.log.Warn("model step failed", "err", err, "duration_ms", time.Since(start).Milliseconds())
		return nod.ChatMessage{}, fmt.Errorf("%w: %w", ErrModel, err)
	}
	if len(resp.Choices) == 0 {
		a.metrics.llm.WithLabelValues("no_choices").Inc()
		return nod.ChatMessage{}, fmt.Errorf("%w: the answer has no choices", ErrModel)
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
		out.ToolCalls = append(out.ToolCalls, nod.ToolCall{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out, nil
}

// toParams builds the request messages. Tool calls are built by hand:
// ToParam drops calls that lack "type":"function", as some servers send.
func toParams(system string, msgs []nod.ChatMessage) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs)+1)
	out = append(out, openai.SystemMessage(system))
	for _, m := range msgs {
		switch m.Role {
		case nod.RoleUser:
			out = append(out, openai.UserMessage(m.Content))
		case nod.RoleTool:
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		case nod.RoleEvent:
			out = append(out, openai.SystemMessage(m.Content))
		case nod.RoleAssistant:
			p := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				p.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				p.ToolCalls = append(p.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
					},
				})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &p})
		}
	}
	return out
}

func toolParams() []openai.ChatCompletionToolUnionParam {
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(tools))
	for _, t := range tools {
		out = append(out, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(t.Params),
		}))
	}
	return out
}

// taskJSON is a task as the tools return it (the contract's get_task shape).
type taskJSON struct {
	ID              string       `json:"id"`
	Title           string       `json:"title"`
	Description     *string      `json:"description"`
	Status          nod.Status   `json:"status"`
	Priority        nod.Priority `json:"priority"`
	EstimateMinutes *int         `json:"estimate_minutes"`
	DueDate         *string      `json:"due_date"`
	Labels          []string     `json:"labels"`
	Checklist       []itemJSON   `json:"checklist"`
	Notes           []string     `json:"notes,omitempty"` // elements of the call that were dropped
}

type itemJSON struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Checked   bool      `json:"checked"`
	CheckedBy nod.Actor `json:"checked_by"`
	CheckedAt *string   `json:"checked_at"`
}

func toJSON(t nod.Task) taskJSON {
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

// TaskJSON renders a task in the shape get_task returns.
func TaskJSON(t nod.Task) string { return string(mustJSON(toJSON(t))) }

func errorJSON(err error) string {
	return string(mustJSON(map[string]string{"error": userError(err)}))
}

// userError is err's text without the sentinel suffix, for the model.
func userError(err error) string {
	msg := err.Error()
	for _, s := range []error{nod.ErrInvalid, nod.ErrNotFound} {
		if errors.Is(err, s) {
			if n := len(msg) - len(": "+s.Error()); n > 0 && msg[n:] == ": "+s.Error() {
				msg = msg[:n]
			}
		}
	}
	return msg
}

// pooledClient keeps idle connections to the one endpoint for many chats
// at once; deadlines come from contexts, not a client timeout.
func pooledClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 32
	return &http.Client{Transport: tr}
}
