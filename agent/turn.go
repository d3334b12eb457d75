package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
)

// Texts the model receives; outside tests script against some of them.
const (
	resultQueued   = "Proposal queued for user review."
	resultDeletion = "Deletion awaits the user's typed confirmation."
)

// reviewInstruction starts a proactive turn. It is nod's instruction, in
// the system prompt: the person's message is only the /review they sent.
const reviewInstruction = "\nThe user sent /review: review their tasks on your own. Look for missing estimates, due dates, priorities or checklist items, stale statuses, and unclear titles. Propose only changes that clearly help; every change you propose is shown to the user for confirmation. Reply in the chat's language.\n"

// dailyInstruction starts the daily review nod runs at the time the
// person chose with /daily; they sent nothing, and may not be reading.
// The conversation's user line "/daily" is nod's, and the prompt says so:
// model players read it as the person's.
const dailyInstruction = "\nThis is the daily review the user turned on with /daily: nod started it at that time and wrote the /daily below itself; the user sent nothing, and may not be reading. Review their tasks on your own, overdue and due today first. Propose only changes that clearly help; every change you propose is shown to the user for confirmation. If nothing needs them today, answer in one short line. Reply in the chat's language.\n"

// Turn runs one turn: the request, then model steps and tool calls until
// the model answers in plain text or MaxSteps is reached. What the turn
// proposes is stored as one change set together with the conversation.
func (a *Agent) Turn(ctx context.Context, req nod.TurnRequest) (nod.TurnResult, error) {
	t, system, err := a.begin(ctx, req)
	if err != nil {
		if t != nil {
			return nod.TurnResult{Turn: t.id}, err
		}
		return nod.TurnResult{}, err
	}
	res, err := t.steps(ctx, system)
	if err != nil {
		// Changes applied before the failure stand, with their receipts.
		return nod.TurnResult{Receipts: t.receipts, Turn: t.id}, err
	}
	return t.finish(ctx, res)
}

// begin sets a turn up from the chat's settings, the conversation so
// far and the system prompt, and saves the person's words. Failing, it
// returns the turn only when those were saved.
func (a *Agent) begin(ctx context.Context, req nod.TurnRequest) (*turn, string, error) {
	t := &turn{a: a, req: req, id: nod.NewID(), started: a.now(), wall: time.Now(), fields: map[string]bool{}, seen: map[string]bool{}}
	settings := req.Settings
	if settings == nil {
		s, err := a.settings.ChatSettings(ctx, req.ChatID, req.UserID)
		if err != nil {
			return nil, "", err
		}
		settings = &s
	}
	t.mode = settings.Effective(t.started)
	t.zone = settings.Zone(a.opts.TimeZone)
	if settings.ZoneUntil != nil {
		t.stayBack, t.stayUntil = zoneName(settings.ZoneBack, a.opts.TimeZone), *settings.ZoneUntil
	}
	t.askZone = settings.TimeZone == "" && settings.ZoneAsked == nil && a.zones != nil
	user := nod.ChatMessage{Role: nod.RoleUser, Content: req.Text, At: t.started, UserID: req.UserID, Speaker: req.Speaker, ReplyTo: req.ReplyTo,
		MsgID: req.MsgID, Forwarded: req.Forwarded, EditOf: req.EditOf, Edits: req.Edits}
	if req.Review {
		user.Content, user.Review = "/review", true
		if req.Daily {
			user.Content = "/daily"
		}
	}
	opening := nod.OpeningRequest{Topic: req.Topic, Window: a.opts.History, Today: t.started.In(t.zone).Format(nod.DateLayout),
		Tasks: promptTasks, Decisions: promptKinds}
	if !req.Resume {
		// What the person said is kept before the model is asked: a crash
		// from here on leaves it in the conversation, and an answer owed.
		// The same write records the update, so a redelivery stops here.
		// It goes with the opening's reads, unless events came that the
		// turn's note on them, written first, must precede.
		words := []nod.ChatMessage{user}
		encodeWire(words)
		user = words[0]
		rec := t.part(true, words)
		opening.Words = &rec
		if req.SettingsKept {
			opening.Settings = settings
		}
	}
	op, err := a.conv.Opening(ctx, opening)
	if err != nil {
		return nil, "", err
	}
	if op.Saved {
		t.msgs, t.saved = []nod.ChatMessage{user}, 1
	}
	t.history = pastReads(fromUserMessage(op.History))
	if req.Resume && !asks(t.history, req.UserID) {
		return nil, "", nod.ErrNotAsked
	}
	events := op.Events
	t.tookBack = slices.ContainsFunc(events, func(e nod.Event) bool { return e.Kind == nod.EventUndone && e.UserID == req.UserID })
	system, err := t.system(ctx, *settings, op)
	if err != nil {
		if op.Saved {
			return t, "", err // the words are kept: an answer is owed
		}
		return nil, "", err
	}
	if req.ReplySet != "" {
		t.loadReplyItems(ctx)
	}
	if req.Review {
		instruction := reviewInstruction
		if req.Daily {
			instruction = dailyInstruction
		}
		system += instruction + dueNote(t.tasks.Tasks, t.started, t.zone)
	}
	if !op.Saved {
		if len(events) > 0 {
			// What the person did outside the conversation comes first, in
			// order, so that the agent never re-applies what they took back.
			t.msgs = append(t.msgs, nod.ChatMessage{Role: nod.RoleEvent, Content: eventNotes(events, req.UserID, req.Speaker != "", t.zone), At: t.started})
		}
		t.msgs = append(t.msgs, user)
	}
	nod.MarkReplaced(t.history, t.msgs) // an edit's earlier words no longer count
	if err := t.flush(ctx, true); err != nil {
		return nil, "", err
	}
	if req.Opened != nil {
		req.Opened(ctx)
	}
	return t, system, nil
}

// system returns the turn's system prompt, with notes on the proposals
// the person's edit withdraws and on the item their reply revises.
func (t *turn) system(ctx context.Context, settings nod.ChatSettings, op nod.Opening) (string, error) {
	withdraw, said := withdrawn(t.req, t.history, op.Open)
	system, err := t.a.systemPrompt(ctx, t.req, settings, t.zone, withdraw, op)
	if err != nil {
		return "", err
	}
	t.offerExternal()
	system += t.externalNote()
	t.tasks, t.listed = op.Focus, true
	if len(withdraw) > 0 {
		t.withdraw = withdraw
		system += withdrawnNote(said)
	}
	if t.req.Revise != nil {
		if err := t.loadRevision(ctx); err != nil {
			return "", err
		}
		system += revisionNote(t.revise.item)
	}
	return system, nil
}

// loadReplyItems lists the items of the set the person's message
// replies to, for the classifier; a set it cannot read lists none.
func (t *turn) loadReplyItems(ctx context.Context) {
	set, err := t.a.sets.ChangeSet(ctx, t.req.ChatID, t.req.ReplySet)
	if err != nil {
		return
	}
	var items []string
	for _, it := range set.Items {
		items = append(items, fmt.Sprintf("%d. %s (%s)", it.N, cut(it.Summary), it.Status))
	}
	t.replyItems = strings.Join(items, "; ")
}

// steps asks the model step by step, running the tool calls it makes,
// until it answers in plain text or MaxSteps is reached. An error is the
// model's; the person's words are kept.
func (t *turn) steps(ctx context.Context, system string) (nod.TurnResult, error) {
	var res nod.TurnResult
	prompted := t.zone // the zone the system prompt is written in
	for res.Steps = 1; ; res.Steps++ {
		t.report(ctx)
		t.takeMore(ctx)
		if t.zone != prompted {
			system, prompted = rezoned(system, t.a.now(), t.zone), t.zone
		}
		msg, err := t.a.complete(ctx, system, t.requestTools, t.history, t.msgs)
		if err != nil {
			t.keepWords(ctx)
			t.a.metrics.turns.WithLabelValues("model_error").Inc()
			return res, err
		}
		t.msgs = append(t.msgs, msg)
		if len(msg.ToolCalls) == 0 {
			if res.Steps < t.a.opts.MaxSteps && t.takeMore(ctx) {
				// The person wrote again while the model answered: what it
				// said goes out beside its answer to the new words.
				if s := strings.TrimSpace(msg.Content); s != "" && !slices.Contains(t.asides, s) {
					t.asides = append(t.asides, s)
				}
				continue
			}
			res.Text = msg.Content
			break
		}
		t.beside = msg.Content
		queued := len(t.items)
		results := t.step(ctx, msg.ToolCalls)
		// Text beside tool calls reaches the person too, unless a result
		// refused or queued one of them: the model wrote it before it knew
		// ("Thanks, I'll use Berlin time", "Moved the slides to
		// Wednesday"), and its next words, written after the results, say
		// what did happen. It is told, or it writes them as a correction
		// of words the person never read.
		if s := strings.TrimSpace(msg.Content); s != "" && !slices.Contains(t.asides, s) {
			if i := slices.IndexFunc(results, unapplied); i < 0 {
				t.asides = append(t.asides, s)
				if len(results) > 0 {
					// Said, or the model says it again: played, a question
					// beside a half-queued call came twice in one message.
					results[0] = withNote(results[0], asideSeen)
				}
			} else {
				results[i] = unseen(results[i], shownWhys(t.items[queued:]))
			}
		}
		for i, result := range results {
			t.msgs = append(t.msgs, nod.ChatMessage{Role: nod.RoleTool, ToolCallID: msg.ToolCalls[i].ID, Content: result, At: t.a.now()})
		}
		if res.Steps >= t.a.opts.MaxSteps {
			res.StepsExhausted = true
			break
		}
	}
	return res, nil
}

// report hands on what the turn applied since it last reported, before
// the model is asked again: the person need not wait for its next step
// to see a change made and be able to undo it (nod.TurnRequest.Progress).
func (t *turn) report(ctx context.Context) {
	if t.req.Progress == nil {
		return
	}
	p := nod.TurnProgress{Receipts: slices.Clone(t.receipts[t.told.receipts:]), Notices: slices.Clone(t.notices[t.told.notices:]), ZoneOffer: t.zoneOffer}
	if t.zoneChange != t.told.zone {
		p.Zone, p.ZoneQuote = t.zoneChange, t.zoneQuote
	}
	if len(p.Receipts) == 0 && len(p.Notices) == 0 && p.Zone == nil {
		return
	}
	t.told.receipts, t.told.notices, t.told.zone = len(t.receipts), len(t.notices), t.zoneChange
	t.req.Progress(ctx, p)
}

// keepWords saves what a turn the model failed keeps, so that the
// conversation can go on: the person's words, not whatever else the turn
// produced. The update's time may be up: the save has its own.
func (t *turn) keepWords(ctx context.Context) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), failedSaveTimeout)
	defer cancel()
	kept := words(t.msgs[t.saved:])
	encodeWire(kept)
	if err := t.a.conv.SaveTurn(sctx, nod.TurnRecord{Topic: t.req.Topic, UserID: t.req.UserID, Turn: t.id, Closes: true, Messages: kept}); err != nil {
		t.a.log.Error("save failed turn", "chat", t.req.ChatID, "err", err)
	}
}

// finish saves the turn's end with its change set, and fills in res what
// the turn made; the text is the model's asides and its answer.
func (t *turn) finish(ctx context.Context, res nod.TurnResult) (nod.TurnResult, error) {
	req := t.req
	encodeWire(t.msgs[t.saved:])
	rec := nod.TurnRecord{Topic: req.Topic, UserID: req.UserID, Turn: t.id, Closes: true, Messages: t.msgs[t.saved:], Audit: t.audit, Deletions: t.deletions, Supersede: t.supersede, Withdraw: t.withdraw, Readings: t.readings}
	if len(t.items) > 0 {
		rec.Set = &nod.ChangeSet{Items: groupByTask(t.items)}
		if req.Review {
			rec.UserID = 0 // any allowed user of the chat may decide a review's set
		}
	}
	if err := t.a.conv.SaveTurn(ctx, rec); err != nil {
		return nod.TurnResult{Receipts: t.receipts, Turn: t.id}, err
	}
	t.keepNamedReminders(ctx)
	res.Set, res.Receipts, res.Notices, res.Deletions, res.Revised = rec.Set, t.receipts, t.notices, t.deletions, t.revised
	res.Answered, res.Readings = t.answered, t.readings
	res.Zone, res.ZoneQuote, res.ZoneOffer, res.RuleOffer = t.zoneChange, t.zoneQuote, t.zoneOffer, t.ruleOffer
	if final := strings.TrimSpace(res.Text); len(t.asides) > 0 {
		if !slices.Contains(t.asides, final) && final != "" {
			t.asides = append(t.asides, final)
		}
		res.Text = strings.Join(t.asides, "\n\n")
	}
	for _, ref := range slices.Concat(t.supersede, t.withdraw) {
		if !slices.Contains(res.Superseded, ref.SetID) {
			res.Superseded = append(res.Superseded, ref.SetID)
		}
	}
	outcome := "answered"
	if res.StepsExhausted {
		outcome = "steps_exhausted"
	}
	t.a.metrics.turns.WithLabelValues(outcome).Inc()
	t.a.metrics.proposals.WithLabelValues("queued").Add(float64(len(t.items)))
	t.a.metrics.proposals.WithLabelValues("applied").Add(float64(len(t.receipts)))
	// Wall time, not the injected clock: this is for the operator.
	t.a.log.Info("turn", "chat", req.ChatID, "outcome", outcome, "llm_calls", res.Steps+t.classified, "classifier_calls", t.classified,
		"applied", len(t.receipts), "proposed", len(t.items), "duration_ms", time.Since(t.wall).Milliseconds())
	return res, nil
}

// asideUnseen tells the model that the words it wrote beside a call
// that was refused or waits for a tap were not shown; asideSeen that
// they were.
const (
	asideUnseen = "The user did not see the text you wrote beside these calls: say what happened as news, not as a correction."
	asideSeen   = "The user sees the text you wrote beside these calls, before your reply: do not say it again."
)

// unseen is such a call's result telling the model so: in an error's
// object, its note. whys are the sentences of those words that the
// step's proposals show as their reasons: the person did read those.
func unseen(result string, whys []string) string {
	note := asideUnseen
	if len(whys) > 0 {
		quoted := make([]string, len(whys))
		for i, w := range whys {
			quoted[i] = "“" + w + "”"
		}
		shown := ", shown as the reason of your proposal"
		if len(whys) > 1 {
			shown = ", shown as the reasons of your proposals"
		}
		note = "The user did not see the text you wrote beside these calls, except " + strings.Join(quoted, " and ") +
			shown + ": say what happened as news, not as a correction."
	}
	return withNote(result, note)
}

// withNote adds note to a call's result: in a JSON object's "note", or
// after the text.
func withNote(result, note string) string {
	var obj map[string]any
	if !strings.HasPrefix(result, "{") {
		return result + " " + note
	}
	if err := json.Unmarshal([]byte(result), &obj); err != nil {
		return result
	}
	obj["note"] = note
	b, err := json.Marshal(obj)
	if err != nil {
		return result
	}
	return string(b)
}

// shownWhys are the distinct reasons items show, in order.
func shownWhys(items []nod.ChangeItem) []string {
	var whys []string
	for _, it := range items {
		if it.Why != "" && !slices.Contains(whys, it.Why) {
			whys = append(whys, it.Why)
		}
	}
	return whys
}

// unapplied reports whether a tool result says the call did not do what
// it asked, or that it waits for the person's tap.
func unapplied(result string) bool {
	return refused(result) || strings.HasPrefix(result, resultQueued)
}

// refused reports whether a tool result says the call did not do what it
// asked: an error, or a change not made, not queued or not decided.
func refused(result string) bool {
	for _, p := range []string{`{"error"`, "Not changed", "Not queued", "Not decided"} {
		if strings.HasPrefix(result, p) {
			return true
		}
	}
	return false
}

// groupByTask orders items task by task, tasks in order of first mention
// and items in call order, so that the set's numbers run on continuously
// under each task's heading.
func groupByTask(items []nod.ChangeItem) []nod.ChangeItem {
	first := map[nod.TaskID]int{}
	for i, it := range items {
		if _, ok := first[it.TaskID]; !ok {
			first[it.TaskID] = i
		}
	}
	out := slices.Clone(items)
	slices.SortStableFunc(out, func(a, b nod.ChangeItem) int { return first[a.TaskID] - first[b.TaskID] })
	return out
}

// failedSaveTimeout bounds saving what a failed turn keeps, after the
// update's own time may have run out.
const failedSaveTimeout = 5 * time.Second

// words are the person's messages and nod's notes among msgs: what a
// failed turn keeps of its unsaved part.
func words(msgs []nod.ChatMessage) []nod.ChatMessage {
	var out []nod.ChatMessage
	for _, m := range msgs {
		if m.Role == nod.RoleUser || m.Role == nod.RoleEvent {
			out = append(out, m)
		}
	}
	return out
}

// flush saves the turn's messages so far, so that a crash keeps them;
// the first flush opens the turn: the person is owed an answer until its
// end is saved.
func (t *turn) flush(ctx context.Context, opens bool) error {
	if t.saved == len(t.msgs) {
		return nil
	}
	encodeWire(t.msgs[t.saved:])
	if err := t.a.conv.SaveTurn(ctx, t.part(opens, t.msgs[t.saved:])); err != nil {
		return err
	}
	t.saved = len(t.msgs)
	return nil
}

// part is the part of the turn that saves msgs; the one that opens it
// owes the person an answer and records the update.
func (t *turn) part(opens bool, msgs []nod.ChatMessage) nod.TurnRecord {
	rec := nod.TurnRecord{Topic: t.req.Topic, UserID: t.req.UserID, Turn: t.id, Opens: opens && !t.req.Review, Said: t.req.Text, Messages: msgs}
	if opens {
		rec.Update = t.req.Update
	}
	return rec
}

// takeMore takes in the messages the person sent since the turn last
// looked, in order, and reports whether there were any. They are saved
// at once, tool results before them included, so a crash keeps them.
func (t *turn) takeMore(ctx context.Context) bool {
	if t.req.More == nil {
		return false
	}
	more := t.req.More(ctx)
	if len(more) == 0 {
		return false
	}
	for _, m := range more {
		m.Role, m.At = nod.RoleUser, t.a.now()
		t.msgs = append(t.msgs, m)
	}
	if err := t.flush(ctx, false); err != nil {
		t.a.log.Error("save the person's messages", "chat", t.req.ChatID, "err", err) // saved with the turn's end
	}
	return true
}

// fromUserMessage drops leading messages until the first user message, so
// that a cut history never starts with a tool result whose call was cut.
func fromUserMessage(h []nod.ChatMessage) []nod.ChatMessage {
	for i, m := range h {
		if m.Role == nod.RoleUser {
			return h[i:]
		}
	}
	return nil
}

// pastReadNote stands in for what list_tasks and get_task returned in an
// earlier turn.
const pastReadNote = "(what this read returned in an earlier turn is left out: the tasks above are as of now; read again for details)"

// maxPastExternal bounds an external call's result from an earlier turn,
// and pastExternalNote ends it.
const (
	maxPastExternal  = 2000
	pastExternalNote = "… (the rest of this result, from an earlier turn, is left out; call the tool again for it)"
)

// pastReads leaves out the results of reads made in earlier turns: the
// system prompt lists the tasks as they are now, a read's old answer
// can only mislead, and a conversation of lists sent a model hundreds of
// kilobytes a turn. The same messages read the same every turn, so the
// conversation stays a prefix of the next turn's. h is not modified.
func pastReads(h []nod.ChatMessage) []nod.ChatMessage {
	reads, external := map[string]bool{}, map[string]bool{}
	out := slices.Clone(h)
	for i, m := range out {
		for _, c := range m.ToolCalls {
			if nod.Tool(c.Name) == nod.ToolListTasks || nod.Tool(c.Name) == nod.ToolGetTask {
				reads[c.ID] = true
			}
			external[c.ID] = nod.Tool(c.Name).External()
		}
		switch {
		case m.Role == nod.RoleTool && reads[m.ToolCallID]:
			out[i].Content, out[i].Wire = pastReadNote, nil
		case m.Role == nod.RoleTool && external[m.ToolCallID] && len(m.Content) > maxPastExternal:
			// An external result may be 64 KB: an earlier turn's keeps its
			// start, the same every turn.
			out[i].Content, out[i].Wire = strings.ToValidUTF8(m.Content[:maxPastExternal], "")+pastExternalNote, nil
		}
	}
	return out
}

// turn is the state of one agent turn: what it started from, what it has
// made so far (saved together at its end), and what it reads on demand.
// A turn runs on one goroutine.
type turn struct {
	// what the turn started from
	a       *Agent
	req     nod.TurnRequest
	id      string    // names the turn's parts as they are saved
	started time.Time // on the injected clock
	wall    time.Time // for the log line's duration
	mode    nod.Mode
	zone    *time.Location // the chat's: what today and a reminder's time mean
	// stayBack is where the chat goes when its stay ends, at stayUntil;
	// "": no stay.
	stayBack  string
	stayUntil time.Time
	// askZone is set while the chat has no zone and the agent was never
	// told to ask where the person is (see zoneNote).
	askZone bool
	// named is the zone the person named in this turn, if any (reading);
	// namedAt counts the receipts of the steps before it was named.
	// namedReminders are the moments the turn's reminder calls read in it,
	// by task, applied, waiting or already so: setting the zone must not
	// move them again (zone.go).
	named          *time.Location
	namedAt        int
	namedReminders map[nod.TaskID][]time.Time
	history        []nod.ChatMessage
	// tookBack is set when the person undid a change since the last
	// turn: words of the exchange before no longer ask for anything
	// (see conversation).
	tookBack bool
	// replyItems lists the numbered items of the set the person's message
	// replies to, for the classifier
	replyItems string
	// the pending item the person's reply revises (revise.go)
	revise *revision
	// requestTools are the tools the model is offered, encoded: nod's
	// own and the external ones this turn saw (external.go); unavailable
	// names the operator's servers that were down.
	requestTools json.RawMessage
	external     map[nod.Tool]nod.ExternalTool
	unavailable  []string
	// tasks are the tasks the system prompt listed; when they are all the
	// chat's, list_tasks answers from them while listed holds: until a
	// step calls a tool that may change a task (read.go).
	tasks  nod.TaskPage
	listed bool
	// what new proposals are checked against, read on first use (memory.go)
	mem memory
	// changes proposed or applied in this turn, reserved as calls are
	// prepared: task id + field, and the change itself (prepare.go)
	fields map[string]bool
	seen   map[string]bool

	// what the turn has made so far; msgs[:saved] are stored
	msgs       []nod.ChatMessage
	saved      int
	audit      []nod.AuditEntry
	classified int // classifier requests
	items      []nod.ChangeItem
	// beside is the model's text beside the calls of the step being
	// decided: the reason its proposals show (nod.ChangeItem.Why).
	beside    string
	supersede []nod.ItemRef // open items the turn's proposals replace
	withdraw  []nod.ItemRef // open items the person's edit took back
	receipts  []nod.Receipt
	notices   []nod.Note // what the person is told beside receipts
	// told is how much of the above the turn already reported (report)
	told struct {
		receipts, notices int
		zone              *nod.ZoneChange
	}
	deletions []nod.PendingDeletion
	asides    []string // what the model wrote beside its tool calls
	// decisions passed on in the person's words, and readings shown instead
	answered []nod.SetID
	readings []nod.Reading
	revised  *nod.ChangeSet // the set once the pending item was revised
	// the chat's time zone as the person set it in this turn
	zoneChange *nod.ZoneChange
	zoneQuote  string
	zoneOffer  *nod.ZoneChange // proposed, waiting for a tap
	ruleOffer  *nod.Rule       // earned by an answer in words
	mayChange  *bool           // whether the person may change the group's zone, once asked
}

// step runs the tool calls of one model step and returns their results in
// call order. Read-only calls run at once. The step's mutating calls are
// prepared first; then one classifier request covers all of them, and each
// is applied at once (explicit, or trusted mode) or queued for the person.
func (t *turn) step(ctx context.Context, calls []nod.ToolCall) []string {
	results := make([]string, len(calls))
	for _, c := range calls {
		if nod.Tool(c.Name) != nod.ToolListTasks && nod.Tool(c.Name) != nod.ToolGetTask {
			t.listed = false // the listing may be out of date from here on
		}
	}
	t.nameZone(ctx, calls)
	var props []*proposal
	for i, c := range calls {
		p, res := t.prepare(ctx, c)
		if p == nil {
			results[i] = res
			continue
		}
		p.idx = i
		props = append(props, p)
	}
	verdicts := t.decide(ctx, props)
	for i, p := range props {
		if verdicts[i].Explicit() && t.mode != nod.ModeTrusted && t.revivesUndone(ctx, p, verdicts[i].QuoteAt) {
			verdicts[i] = confidence.Verdict{Level: confidence.NeedsConfirmation, Reasoning: verdicts[i].Reasoning,
				Default: "the quote predates the person's undo of this change"}
		}
		if verdicts[i].Explicit() && t.mode != nod.ModeTrusted && t.revivesRejected(ctx, p, verdicts[i].QuoteAt) {
			verdicts[i] = confidence.Verdict{Level: confidence.NeedsConfirmation, Reasoning: verdicts[i].Reasoning,
				Default: "the quote predates the person's rejection of this change"}
		}
		if why := t.namesOther(p, verdicts[i]); why != "" && t.mode != nod.ModeTrusted {
			// Keep what the model answered: the agent is told why it waits.
			v := verdicts[i]
			verdicts[i] = confidence.Verdict{Level: confidence.NeedsConfirmation, Reasoning: v.Reasoning, Answered: v.Answered, Default: why}
		}
		results[p.idx] = t.commit(ctx, p, verdicts[i])
		if note := t.zoneNote(ctx, p); note != "" {
			results[p.idx] += "\n" + note
		}
	}
	return results
}

// decide returns a verdict per proposal: the mode decides, or, in smart
// mode outside a review, one classifier request for all of them.
func (t *turn) decide(ctx context.Context, props []*proposal) []confidence.Verdict {
	verdicts := make([]confidence.Verdict, len(props))
	if len(props) == 0 {
		return verdicts
	}
	switch {
	case t.req.Review || t.mode == nod.ModeAlways:
		for i := range verdicts {
			verdicts[i] = confidence.Verdict{Level: confidence.NeedsConfirmation}
		}
		return verdicts
	case t.mode == nod.ModeTrusted && !t.forwarded():
		// Forwarded words are never the person's: with them in the turn,
		// even trusted mode asks the classifier (docs/design.md §11).
		for i := range verdicts {
			verdicts[i] = confidence.Verdict{Level: confidence.Explicit}
		}
		return verdicts
	}
	conv := t.conversation()
	var said strings.Builder
	for _, e := range conv {
		if e.Role == nod.RoleUser {
			said.WriteString(e.Text + "\n")
		}
	}
	actions := make([]confidence.Action, len(props))
	for i, p := range props {
		summary := classifierSummary(p, said.String(), t.zone) + t.homeLine(p)
		if p.answer != nil {
			summary = p.answer.summary()
		}
		actions[i] = confidence.Action{Tool: p.tool.Name, Summary: summary}
		if t.req.Speaker != "" { // a group: only the requester's words count
			actions[i].For, actions[i].ForSpeaker = t.req.UserID, t.req.Speaker
		}
		if p.answer != nil { // only words sent after the set was shown answer it
			actions[i].Answer, actions[i].After, actions[i].Rejects = true, p.answer.set.AfterSeq, len(p.answer.reject) > 0
		}
	}
	t.classified++
	return t.a.classifier.Classify(ctx, t.reading(), conv, actions)
}

// asks reports whether history ends with the model asking userID
// something: a question after their words, which a turn may answer.
func asks(history []nod.ChatMessage, userID nod.UserID) bool {
	from := answered(history)
	return from < len(history) && history[from].Role == nod.RoleUser && history[from].UserID == userID
}

// answered is where the exchange a turn answers starts in history: when
// the model asked something in the previous turn ("the title or the
// estimate?", "Where are you? Tell me your city and I'll set it."), in
// its closing words or in those it wrote beside a call, the person's
// words it asked about count with the answer; otherwise the turn
// answers nothing before it (len(history)).
func answered(history []nod.ChatMessage) int {
	ends := func(m nod.ChatMessage) bool { return m.Role == nod.RoleAssistant && len(m.ToolCalls) == 0 }
	n := len(history)
	if n == 0 || !ends(history[n-1]) {
		return n
	}
	start := 0
	for i := n - 2; i >= 0; i-- {
		if ends(history[i]) {
			start = i + 1
			break
		}
	}
	for _, m := range history[start:] {
		if m.Role == nod.RoleAssistant && strings.ContainsAny(m.Content, "?？") {
			return start
		}
	}
	return n
}

// forwarded reports whether the turn's own words include a message the
// person forwarded.
func (t *turn) forwarded() bool {
	return slices.ContainsFunc(t.msgs, func(m nod.ChatMessage) bool { return m.Role == nod.RoleUser && m.Forwarded != "" })
}

// conversation is what the classifier may see: the person's messages and
// the assistant's plain text the person saw, latest last, within a budget. What the
// model wrote after the person's latest words is left out: it wrote that
// having read tool results, task text among them, which must never speak
// to the classifier. Lines of earlier turns are marked: they are context,
// never a quote, except the words of the exchange this turn answers,
// unless the person undid a change since: "yes, Friday" after the Undo
// of "add a task: pay the bill" must not quote the task back.
func (t *turn) conversation() []confidence.Entry {
	answers := answered(t.history)
	if t.tookBack {
		answers = len(t.history)
	}
	const maxEntries, maxChars = 12, 4000
	var out []confidence.Entry
	size := 0
	own := t.msgs
	for i := len(t.msgs) - 1; i >= 0; i-- {
		if t.msgs[i].Role == nod.RoleUser {
			own = t.msgs[:i+1]
			break
		}
	}
	all := append(append([]nod.ChatMessage(nil), t.history...), own...)
	// Text the model wrote beside a call that a result refused or queued
	// never reached the person (steps): the classifier does not hear it
	// either, as if it had been said. Played, "Ink is no longer urgent"
	// beside a queued label change read as nod's.
	unseenCalls := map[string]bool{}
	for _, m := range all {
		if m.Role == nod.RoleTool && unapplied(m.Content) {
			unseenCalls[m.ToolCallID] = true
		}
	}
	for i := len(all) - 1; i >= 0 && len(out) < maxEntries; i-- {
		m := all[i]
		text := strings.TrimSpace(m.Content)
		if text == "" || m.Review || (m.Role != nod.RoleUser && m.Role != nod.RoleAssistant) {
			continue
		}
		if slices.ContainsFunc(m.ToolCalls, func(c nod.ToolCall) bool { return unseenCalls[c.ID] }) {
			continue
		}
		if size += len(text); size > maxChars && len(out) > 0 {
			break
		}
		out = append(out, confidence.Entry{Role: m.Role, Text: text, At: m.At, UserID: m.UserID, Speaker: m.Speaker, Seq: m.Seq, ReplyTo: m.ReplyTo,
			Forwarded: m.Forwarded, Edited: m.EditOf != 0, Replaced: m.Replaced, Earlier: i < answers, Asked: i >= answers && i < len(t.history)})
	}
	slices.Reverse(out)
	if t.replyItems != "" && len(out) > 0 && out[len(out)-1].Role == nod.RoleUser && !t.req.Review {
		out[len(out)-1].ReplyTo = "nod's proposals: " + t.replyItems
	}
	return out
}

// record audits the outcome of one call.
func (t *turn) record(start time.Time, tool nod.Tool, a json.RawMessage, o nod.Outcome, errText string) {
	t.recordEntry(start, nod.AuditEntry{Tool: tool, Args: a, Outcome: o, Error: errText})
}

// recordEntry audits one call as e says, stamped with the person, the
// call's duration and the time: each row is written once, whole.
func (t *turn) recordEntry(start time.Time, e nod.AuditEntry) {
	if len(e.Args) == 0 {
		e.Args = json.RawMessage("{}")
	}
	e.UserID, e.Duration, e.At = t.req.UserID, time.Since(start), t.a.now()
	t.audit = append(t.audit, e)
}
