package confidence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/transport"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"github.com/prometheus/client_golang/prometheus"
)

// Level is a classifier verdict.
type Level string

// Verdict levels, as the classifier answers them.
const (
	Explicit          Level = "explicit"
	NeedsConfirmation Level = "needs_confirmation"
)

// Entry is one line of the conversation the classifier sees.
type Entry struct {
	Role nod.Role // RoleUser or RoleAssistant
	Text string
	At   time.Time
	// UserID is who wrote a user line; Speaker names them in a group,
	// where every line says who spoke ("Alice (1001)"), and is empty in a
	// private chat.
	UserID  nod.UserID
	Speaker string
	// Seq is the line's number in the chat; 0 for a message of the turn
	// in progress, newer than every numbered one.
	Seq int64
	// ReplyTo, for a message of the person's that replies to another,
	// says what it replies to: the text, or the numbered items a
	// change-set message showed.
	ReplyTo string
	// Forwarded, on a message the person forwarded, names whose words it
	// carries: never the person's own, so never a quote. Edited marks an
	// edit of an earlier message; Replaced a message edited since, whose
	// words no longer count.
	Forwarded string
	Edited    bool
	Replaced  bool
	// Earlier marks a line of an earlier turn: context for the classifier,
	// never a quote. A change runs at once only on the words that started
	// the turn deciding it, so two words said long ago cannot carry it.
	Earlier bool
	// Asked marks a line of the exchange this turn answers: the person's
	// words the model asked about in its last turn, and its question.
	// They may ask for the actions with the answer.
	Asked bool
}

// Action is one proposed tool call, summarised by nod from its arguments.
type Action struct {
	Tool    nod.Tool
	Summary string
	// For is the person whose words alone may ask for the action, in a
	// group (0: any user line, as in a private chat). Who it is for is
	// named to the classifier as Speaker names them.
	For        nod.UserID
	ForSpeaker string
	// Answer marks a decision on a shown proposal (answer_proposals).
	// After, if set, is the number of the last
	// line before that proposal was shown: only later lines may answer it.
	// Rejects is set when the answer rejects items: "2 and 4 not" says
	// no to them, and its "not" does not void it.
	Answer  bool
	After   int64
	Rejects bool
}

// quotable reports whether e's words may be quoted for a.
func (a Action) quotable(e Entry) bool {
	switch {
	case e.Role != nod.RoleUser:
		return false
	case a.For != 0 && e.UserID != a.For:
		return false // another member's words never ask for someone's change
	case a.After != 0 && e.Seq != 0 && e.Seq <= a.After:
		return false // said before the proposal was shown: it cannot answer it
	case e.Forwarded != "" || e.Replaced:
		return false // someone else's words, or words the person took back
	case e.Earlier:
		return false // said in an earlier turn
	}
	return true
}

// Verdict is the decision on one action.
type Verdict struct {
	Level     Level
	Quote     string    // the person's words that asked for it (explicit only)
	QuoteAt   time.Time // when the person wrote the quoted message
	Reasoning string
	// Default says why the conservative default was taken, if it was.
	Default string
	// Answered is the level the model answered, before nod checked it.
	Answered Level
	// Fields are the person's words for single fields of an action that
	// sets several (a new task's "priority", "due"), by field name as
	// FieldName gives it; each checked as Quote is. Only an explicit
	// verdict has them, and a field without words is not in it.
	Fields map[string]FieldQuote
}

// FieldQuote is the person's words for one field of an action, and when
// they wrote them.
type FieldQuote struct {
	Quote string
	At    time.Time
}

// FieldName gives a field's name as Verdict.Fields keys it: lower case,
// and the tools' argument names for the fields they set read as the
// fields' own ("due_date" is "due").
func FieldName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if f, ok := fieldAliases[s]; ok {
		return f
	}
	return s
}

var fieldAliases = map[string]string{"due_date": "due", "estimate_minutes": "estimate", "remind_at": "reminder", "label": "labels"}

// Explicit reports whether the action may run without asking.
func (v Verdict) Explicit() bool { return v.Level == Explicit }

// Options configure the classifier.
type Options struct {
	BaseURL string
	APIKey  string
	Model   string
	Timeout time.Duration // of the one request per step
	// MaxConns is how many idle connections to the endpoint are kept
	// (default 256).
	MaxConns int
	// Metrics, if set, receives the verdict counts.
	Metrics prometheus.Registerer
	// Now tells today's date, against which the classifier reads words
	// such as "next Friday" (default time.Now).
	Now func() time.Time
	// Lexicon gives the lists of words nod reads a quote with, by name, in
	// every language it speaks (formatting.Words). Without them no quote
	// counts: every verdict needs the person's confirmation.
	Lexicon func(list string) []string
}

// Classifier asks the classifier model. It is safe for concurrent use.
type Classifier struct {
	opts Options
	llm  openai.Client
	log  *slog.Logger
	lex  *lexicon
	// plain is set once the endpoint rejected the JSON-schema response
	// format: later requests go without it.
	plain    atomic.Bool
	verdicts *prometheus.CounterVec // by level and default taken
	latency  prometheus.Histogram
}

// DefaultTimeout bounds a classifier request where Options leave it unset.
const DefaultTimeout = 5 * time.Second

// New returns a classifier. Its requests are never retried (docs/design.md §3.2).
func New(opts Options, log *slog.Logger) *Classifier {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = transport.DefaultMaxConns
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	llm := openai.NewClient(option.WithBaseURL(opts.BaseURL), option.WithAPIKey(opts.APIKey), option.WithMaxRetries(0), option.WithHTTPClient(transport.Pooled(opts.MaxConns, 0)))
	c := &Classifier{opts: opts, llm: llm, log: log, lex: newLexicon(opts.Lexicon),
		verdicts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_classifier_verdicts_total",
			Help: "Classifier verdicts per action, with the conservative default taken and why."}, []string{"level", "default"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "nod_classifier_seconds",
			Help: "Latency of one classifier request.", Buckets: prometheus.ExponentialBuckets(0.05, 2, 9)}),
	}
	if opts.Metrics != nil {
		opts.Metrics.MustRegister(c.verdicts, c.latency)
	}
	return c
}

const systemPrompt = `You check an assistant's proposed actions on a person's task list. For each action, decide whether the person explicitly asked for exactly that change.

"explicit": the person's own words directly request this change, or directly accept a specific option the assistant offered (for example the assistant asked "the title and the estimate?" and the person answered "both").
"needs_confirmation": anything else — the change is inferred, suggested by the assistant, vague ("clean up my tasks"), broader or different from what was asked, or you are unsure.

A negation asks for nothing it negates ("don't raise it", "I won't say yes to all"); in "2 and 4 not" it rejects those items. Quote only the words that ask, without a clause beside them that says no or not about something else: in "it isn't urgent any more, take that off" quote "take that off", since nod reads a quote that holds a no or a not as no order; an answer to proposals that turns some down ("yes to 1, not 2") is quoted whole, its no included, since the no is part of what it decides. A question that asks about something ("what is item 2?", "why P1?", "can you tell me what the description says?") decides nothing, whatever action it is quoted for; a polite request phrased as a question ("could you set it to P1?") is a request.
An answer to a proposal counts only from what the person wrote after the proposal was shown (a line marks where); the request the proposal came from does not answer it.
In a group chat each line names its speaker; an action is for the one person the action list names, and only that person's own words can ask for it: another member's words never do.
A forwarded message carries someone else's words: it never asks for anything, even though the person forwarded it; only what the person writes themselves counts. A message the person edited since counts only as edited: its earlier words ask for nothing.

Only the person's messages of this turn can ask for an action; below, after today's date, it says where the turn starts. Earlier lines are context: words said there ask for nothing now.

An action line says what a change replaces or removes as well as what it sets ("labels: bug → backend (removes bug)", "priority: P3 → P1"). Words that ask to add or set something do not ask to remove or replace what is there: "label it backend" asks for nothing that removes "bug".

For "explicit", quote the person's exact words that ask for it, copied from one of their lines ("User:", or their name in a group): the whole line, or the part of it (at least two words) that asks for this action. Never quote the assistant (nod) or the action list. For "needs_confirmation", leave quote empty ("").
An action that sets several fields (a new task with a priority, a due date, labels…) may have been asked for across several messages ("add a task to call the printer", "oh and it's urgent", "due friday"). Put the words that ask for the action itself in quote, and in quotes the person's own words for each other field the action sets, as the action line names it: [{"field":"priority","quote":"oh and it's urgent"},{"field":"due","quote":"due friday"}]. Leave out a field that no words of theirs ask for: nod asks the person about it. Leave quotes empty ([]) for an action that sets one field.
A person saying they did a task ("I sent the invoice to Lola", "called mum, done") asks for that task to be marked done: "explicit" for setting the status of the task their words name to done, quoting those words. Their report asks for nothing else: not a new task, a date or another task's status.
A new task (create_task) the person asked for is "explicit" even when the action also sets fields they never mentioned (a label, a priority, a due date the assistant guessed): quote their words that ask for the task, and leave each guessed field out of quotes. nod then creates the task with what they said and asks them about each guessed field on its own, so a guess never holds back a task they asked for.
Answer only with JSON: {"actions":[{"index":0,"level":"explicit","quote":"...","quotes":[],"reasoning":"..."}]}, one entry per action.`

// responseSchema is the strict JSON schema of the answer.
var responseSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"actions": map[string]any{
			"type": "array",
			"items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"index": map[string]any{"type": "integer"},
					"level": map[string]any{"type": "string", "enum": []string{string(Explicit), string(NeedsConfirmation)}},
					"quote": map[string]any{"type": "string"},
					"quotes": map[string]any{"type": "array", "items": map[string]any{
						"type":                 "object",
						"properties":           map[string]any{"field": map[string]any{"type": "string"}, "quote": map[string]any{"type": "string"}},
						"required":             []string{"field", "quote"},
						"additionalProperties": false,
					}},
					"reasoning": map[string]any{"type": "string"},
				},
				// Strict schemas list every property; an answer without
				// quotes is read all the same.
				"required":             []string{"index", "level", "quote", "quotes", "reasoning"},
				"additionalProperties": false,
			},
		},
	},
	"required":             []string{"actions"},
	"additionalProperties": false,
}

// Classify returns one verdict per action, in order. zone is the
// person's time zone, for the date the classifier reads "next Friday"
// from (nil: UTC). It makes exactly one request (two only when the
// endpoint rejects the response format) and never fails: any problem
// gives NEEDS_CONFIRMATION with the reason in Verdict.Default.
func (c *Classifier) Classify(ctx context.Context, zone *time.Location, conv []Entry, actions []Action) []Verdict {
	if zone == nil {
		zone = time.UTC
	}
	vs := c.classify(ctx, zone, conv, actions)
	for _, v := range vs {
		c.verdicts.WithLabelValues(string(v.Level), v.Default).Inc()
	}
	return vs
}

func (c *Classifier) classify(ctx context.Context, zone *time.Location, conv []Entry, actions []Action) []Verdict {
	verdicts := make([]Verdict, len(actions))
	fallback := func(reason string) []Verdict {
		for i := range verdicts {
			if verdicts[i].Level == "" {
				verdicts[i] = Verdict{Level: NeedsConfirmation, Default: reason}
			}
		}
		return verdicts
	}
	if len(actions) == 0 {
		return verdicts
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	start := time.Now()
	content, err := c.ask(ctx, zone, conv, actions)
	c.latency.Observe(time.Since(start).Seconds())
	if err != nil {
		c.log.Warn("classifier failed; asking the person", "err", err)
		if errors.Is(err, context.DeadlineExceeded) {
			return fallback("timeout")
		}
		return fallback("classifier unavailable")
	}
	answer, err := parse(content)
	if err != nil {
		c.log.Warn("classifier answer unusable; asking the person", "err", err)
		return fallback("unparsable answer")
	}
	seen := map[int]bool{}
	for _, a := range answer {
		if a.Index < 0 || a.Index >= len(actions) || seen[a.Index] {
			continue // out of range or repeated: ignored
		}
		seen[a.Index] = true
		v := Verdict{Level: NeedsConfirmation, Reasoning: nod.CleanText(a.Reasoning), Answered: Level(strings.ToLower(strings.TrimSpace(a.Level)))}
		switch v.Answered {
		case Explicit:
			if at, why := c.lex.quoted(conv, actions[a.Index], a.Quote); why == "" {
				v.Level, v.Quote, v.QuoteAt = Explicit, strings.TrimSpace(a.Quote), at
				v.Fields = c.lex.fieldQuotes(conv, actions[a.Index], a.Quotes)
			} else {
				v.Default = why
			}
		case NeedsConfirmation:
		default:
			v.Default = "unknown level"
		}
		verdicts[a.Index] = v
	}
	return fallback("no verdict for this action")
}

// todayLine is the classifier's clock: the chat's local date and time,
// and in the small hours how "tomorrow" reads, as the agent is told.
func todayLine(now time.Time, zone *time.Location) string {
	line := nod.TodayIs(now, zone) + `: read dates such as "next Friday" from it.`
	if nod.SmallHours(now, zone) {
		line += " " + nod.SmallHoursNote + " Read their words so."
	}
	return line
}

// ask sends the one request and returns the answer's text.
func (c *Classifier) ask(ctx context.Context, zone *time.Location, conv []Entry, actions []Action) (string, error) {
	params := openai.ChatCompletionNewParams{
		Model: shared.ChatModel(c.opts.Model),
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(systemPrompt + "\n\n" + todayLine(c.opts.Now(), zone) + turnNote(conv)),
			openai.UserMessage(Transcript(conv, after(actions))),
			openai.UserMessage(ActionList(actions)),
		},
	}
	if !c.plain.Load() {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name: "verdicts", Strict: openai.Bool(true), Schema: responseSchema,
			}},
		}
	}
	resp, err := c.llm.Chat.Completions.New(ctx, params)
	var apiErr *openai.Error
	if err != nil && !c.plain.Load() && errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest {
		// This endpoint does not take structured output: remember, and ask
		// the same once more without it.
		c.plain.Store(true)
		c.log.Info("classifier endpoint rejects JSON schema; using plain JSON")
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{}
		resp, err = c.llm.Chat.Completions.New(ctx, params)
	}
	if err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", errors.New("the answer has no choices")
	}
	if r := resp.Choices[0].Message.Refusal; r != "" {
		return "", fmt.Errorf("refused: %s", r)
	}
	return resp.Choices[0].Message.Content, nil
}

// after is where the transcript marks that a proposal was shown: the
// latest such point among the actions that answer one, 0 for none.
func after(actions []Action) int64 {
	var n int64
	for _, a := range actions {
		n = max(n, a.After)
	}
	return n
}

// Transcript renders the conversation one entry per line with its
// speaker: "User" and "Assistant" in a private chat, names in a group.
// When shownAfter is set, a line marks where the proposal being answered
// was shown: after the last entry numbered up to it.
func Transcript(conv []Entry, shownAfter int64) string {
	var b strings.Builder
	group := false
	for _, e := range conv {
		group = group || e.Speaker != ""
	}
	if group {
		b.WriteString("Conversation (a group chat: each line names its speaker; nod is the assistant):\n")
	} else {
		b.WriteString("Conversation:\n")
	}
	marked := shownAfter == 0
	for _, e := range conv {
		if !marked && (e.Seq == 0 || e.Seq > shownAfter) {
			b.WriteString("--- nod showed the proposal here; only what follows can answer it ---\n")
			marked = true
		}
		role := "User"
		switch {
		case e.Role == nod.RoleAssistant && group:
			role = "nod"
		case e.Role == nod.RoleAssistant:
			role = "Assistant"
		case e.Speaker != "":
			role = e.Speaker
		}
		if e.ReplyTo != "" {
			role += " (replying to " + strings.Join(strings.Fields(e.ReplyTo), " ") + ")"
		}
		switch {
		case e.Forwarded != "":
			role += " (forwarding a message from " + e.Forwarded + "; not their own words)"
		case e.Replaced:
			role += " (a message they edited since; these words no longer count)"
		case e.Edited:
			role += " (edited an earlier message to)"
		}
		fmt.Fprintf(&b, "%s: %s\n", role, strings.Join(strings.Fields(e.Text), " "))
	}
	if !marked {
		b.WriteString("--- nod showed the proposal here; nothing follows that answers it ---\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// ActionList renders the proposed actions numbered from 0, saying whose
// words may ask for them in a group.
func ActionList(actions []Action) string {
	var b strings.Builder
	b.WriteString("Proposed actions:\n")
	for i, a := range actions {
		fmt.Fprintf(&b, "%d. %s: %s", i, a.Tool, a.Summary)
		if a.ForSpeaker != "" {
			fmt.Fprintf(&b, " [for %s: only their own words count]", a.ForSpeaker)
		}
		b.WriteByte('\n')
	}
	b.WriteString("\nFor each action, was it explicitly requested by the person? Answer with the JSON object only.")
	return b.String()
}

// turnNote says where this turn starts, as the prompt promises: at the
// person's first message after lines of earlier turns, or, with none
// shown, at the first line (the turn's own words, with those of an
// exchange it answers). Said either way, so that a model never reads the
// missing line as "the turn's start is unknown".
func turnNote(conv []Entry) string {
	if s, asked, who := turnStart(conv); s != "" {
		if asked {
			// Said as such: played, "this turn starts with" a message of
			// the turn before read as a mistake. In a group it names
			// whose message that was: maybe not the person the actions
			// are for.
			if who != "" {
				return "\n\nThis turn may answer what nod asked about " + who + "'s message “" + s + "”: if it does, that message, nod's question and the later messages can ask for the actions, each only in the words of the person it is for; if not, only the later messages can. The lines before it are context."
			}
			return "\n\nThis turn may answer what nod asked about the person's message “" + s + "”: if it does, that message, nod's question and the person's later messages can ask for the actions; if not, only their later messages can. The lines before it are context."
		}
		return "\n\nThis turn starts with the person's message “" + s + "”: only it and their later messages can ask for the actions; the lines before it are context."
	}
	if !slices.ContainsFunc(conv, func(e Entry) bool { return e.Role == nod.RoleUser }) {
		return ""
	}
	return "\n\nNo earlier turn is shown: every line below is this turn's, or the exchange it answers, and the person's lines can ask for the actions."
}

// turnStart is the first user line of this turn, cut short, when lines
// of earlier turns come before it, whether it is a line of the exchange
// the turn answers, and who said it in a group; "" otherwise.
func turnStart(conv []Entry) (string, bool, string) {
	earlier := false
	for _, e := range conv {
		switch {
		case e.Earlier:
			earlier = true
		case e.Role == nod.RoleUser && earlier:
			s := strings.Join(strings.Fields(e.Text), " ")
			if r := []rune(s); len(r) > 80 {
				s = string(r[:79]) + "…"
			}
			return s, e.Asked, e.Speaker
		}
	}
	return "", false, ""
}

type answerAction struct {
	Index     int             `json:"index"`
	Level     string          `json:"level"`
	Quote     string          `json:"quote"`
	Quotes    json.RawMessage `json:"quotes"` // optional: the words for each field
	Reasoning string          `json:"reasoning"`
}

// fieldQuotes reads an answer's per-field quotes, a list of {field,
// quote} as the schema asks or an object by field as models also write
// it, and keeps those that count as a quote for a does. Anything else in
// it is ignored: a field without words asks the person.
func (l *lexicon) fieldQuotes(conv []Entry, a Action, raw json.RawMessage) map[string]FieldQuote {
	said := map[string]string{}
	var list []struct{ Field, Quote string }
	if json.Unmarshal(raw, &list) == nil {
		for _, q := range list {
			said[FieldName(q.Field)] = q.Quote
		}
	} else if json.Unmarshal(raw, &said) != nil {
		return nil
	}
	out := map[string]FieldQuote{}
	for f, q := range said {
		f = FieldName(f)
		if at, why := l.quoted(conv, a, q); f != "" && why == "" {
			out[f] = FieldQuote{Quote: strings.TrimSpace(q), At: at}
		}
	}
	return out
}

// parse reads the answer's JSON object, inside a code fence or not.
func parse(content string) ([]answerAction, error) {
	s := strings.TrimSpace(content)
	start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if start < 0 || end < start {
		return nil, errors.New("no JSON object in the answer")
	}
	var raw struct {
		Actions []json.RawMessage `json:"actions"`
	}
	if err := json.Unmarshal([]byte(s[start:end+1]), &raw); err != nil {
		return nil, fmt.Errorf("answer: %w", err)
	}
	var out []answerAction
	for _, r := range raw.Actions {
		var a answerAction
		var probe map[string]json.RawMessage
		if json.Unmarshal(r, &probe) != nil || probe["index"] == nil || probe["level"] == nil {
			continue // an entry without index or level decides nothing
		}
		if err := json.Unmarshal(r, &a); err != nil {
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

// quoted checks an explicit verdict's quote for action a: it must occur
// in one of the messages a may be quoted from, ignoring case and runs of
// white space. It returns when that message was sent, or why the quote
// does not count.
//
// A quote proves something only if it is a whole message of the person's,
// or at least two words of one: a fragment such as "t" occurs almost
// anywhere (docs/design.md §3.3). Whatever change it is quoted for, words
// that say no or ask a question decide nothing.
func (l *lexicon) quoted(conv []Entry, a Action, quote string) (time.Time, string) {
	if !l.ok {
		return time.Time{}, "no words to read the quote with"
	}
	q := nod.FoldText(quote)
	if q == "" {
		return time.Time{}, "quote not found in the person's messages"
	}
	words := len(strings.Fields(q))
	why := "quote not found in the person's messages"
	for i := len(conv) - 1; i >= 0; i-- {
		e := conv[i]
		if e.Role != nod.RoleUser {
			continue
		}
		m := nod.FoldText(e.Text)
		if m != q && (words < 2 || !strings.Contains(m, q)) {
			continue
		}
		if a.quotable(e) {
			said := l.corrected(l.clause(m, q))
			if no := l.negation(said); no != "" && !a.Rejects {
				return time.Time{}, "the person's words hold “" + no + "”: words that say no or not are not read as an order"
			}
			if l.asks(m, q) {
				return time.Time{}, "a question decides nothing"
			}
			return e.At, ""
		}
		switch {
		case a.For != 0 && e.UserID != a.For:
			why = "quote is another person's words"
		case e.Forwarded != "":
			why = "quote is from a forwarded message: someone else's words"
		case e.Replaced:
			why = "quote is from words the person edited away"
		case e.Earlier:
			why = "quote is from an earlier turn, not the words this change answers"
		default:
			why = "quote predates the proposal it answers"
		}
	}
	return time.Time{}, why
}

// clause returns the part of message m (folded) that quote q stands in,
// widened to the clauses around it: "don't raise it" holds the words
// "raise it", and "I won't say yes to all" the words "yes to all", so a
// quote is judged with the words that turn it around; but in "nee, keine
// anderen. aber nimm das doch rein" the "nee" answers something else.
func (l *lexicon) clause(m, q string) string {
	at := strings.Index(m, q)
	if at < 0 {
		return m
	}
	start, end := at, at+len(q)
	for start > 0 && !l.boundary(m, start) {
		start--
	}
	for end < len(m) && !l.boundary(m, end) {
		end++
	}
	if end < len(m) && m[end] == '?' {
		end++ // a question stays one
	}
	return m[start:end]
}

// boundary reports whether a clause ends at byte i of m: a sentence's or
// a clause's punctuation, or a word that starts a new one ("but").
func (l *lexicon) boundary(m string, i int) bool {
	switch m[i] {
	case '.', '!', '?', ';', ',', '\n':
		return true
	}
	rest := m[i:]
	return slices.ContainsFunc(l.clauses, func(c string) bool { return strings.HasPrefix(rest, " "+c+" ") })
}

// corrected returns what words say after the speaker corrected
// themselves ("to Friday, no wait, to Monday" says "to Monday"): the "no"
// of a correction takes back what came before it, and asks for nothing by
// itself. Words that end in a correction ("do it, no wait") are left
// whole, so that their no still counts.
func (l *lexicon) corrected(said string) string {
	at := -1
	for _, c := range l.corrections {
		if i := strings.LastIndex(said, c); i >= 0 && i+len(c) > at {
			at = i + len(c)
		}
	}
	if at < 0 || !strings.ContainsFunc(said[at:], unicode.IsLetter) {
		return said
	}
	return said[at:]
}

// negation returns the first word of text that says no or not, or "".
// Such words make nothing explicit, whichever part of them the classifier
// quotes: the person is asked instead.
func (l *lexicon) negation(text string) string {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	}) {
		w = strings.ReplaceAll(w, "’", "'")
		if l.negations[w] || slices.ContainsFunc(l.negationSuffixes, func(s string) bool { return strings.HasSuffix(w, s) }) {
			return w
		}
	}
	return ""
}
