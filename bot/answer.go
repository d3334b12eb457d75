package bot

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/formatting"
)

// The order in which a text message is read (DESIGN §3, first match wins):
// the answer to a waiting typed confirmation; a command; yes/no to a change
// set; a rejection's reason; anything else goes to the agent.

// typedConfirmation answers a waiting deletion, if the person has one.
func (b *Bot) typedConfirmation(ctx context.Context, in incoming) bool {
	d, ok, err := b.store.TakeDeletion(ctx, in.chat, in.user)
	if err != nil {
		b.log.Error("typed confirmation", "chat", in.chat, "err", err)
		return false
	}
	if !ok {
		return false
	}
	if !strings.EqualFold(strings.TrimSpace(in.text), strings.TrimSpace(d.Title)) {
		b.reply(ctx, in.chat, in.loc.Text("delete_cancelled", d.Title))
		return true
	}
	applied, err := b.decide.Delete(ctx, in.chat, in.user, d)
	if err != nil {
		b.reply(ctx, in.chat, formatting.Message{HTML: formatting.Escape(b.explain(in.loc, err, "delete", "chat", in.chat))})
		return true
	}
	b.reply(ctx, in.chat, in.loc.WithUndo(in.loc.Text("deleted", d.Title), applied.Undo.ID))
	return true
}

// Answers are read in the words of every language nod speaks: a German
// "ja zu 1 und 3" in an English chat means the same.
var (
	yesWords = wordSet(formatting.Words("words_yes"))
	noWords  = wordSet(formatting.Words("words_no"))
	partial  = regexp.MustCompile(`^(` + alternatives(formatting.Words("words_yes")) + `)\s*(?:(?:` + alternatives(formatting.Words("words_to")) +
		`)\s*)?((?:\d+\s*(?:,|&|` + alternatives(formatting.Words("words_and")) + `)?\s*)+)$`)
	numbers = regexp.MustCompile(`\d+`)
)

func wordSet(ws []string) map[string]bool {
	m := map[string]bool{}
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// alternatives is a regexp alternation of words, each matched literally.
func alternatives(ws []string) string {
	qs := make([]string, len(ws))
	for i, w := range ws {
		qs[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(qs, "|")
}

// parseAnswer reads "yes", "no" and "yes to 1, 3". items is nil for all.
func parseAnswer(text string) (confirm bool, items []int, ok bool) {
	t := strings.ToLower(strings.TrimRight(strings.TrimSpace(text), ".!"))
	if yesWords[t] {
		return true, nil, true
	}
	if noWords[t] {
		return false, nil, true
	}
	m := partial.FindStringSubmatch(t)
	if m == nil {
		return false, nil, false
	}
	for _, n := range numbers.FindAllString(m[2], -1) {
		v, err := strconv.Atoi(n)
		if err == nil {
			items = append(items, v)
		}
	}
	return true, items, len(items) > 0
}

// answerTarget is the set a yes/no or a reason is about: the replied-to
// set, else the newest open set the person may decide.
func (b *Bot) answerTarget(ctx context.Context, in incoming) (nod.ChangeSet, bool) {
	if in.replyTo != 0 {
		set, err := b.store.ChangeSetByMessage(ctx, in.chat, in.replyTo)
		return set, err == nil
	}
	sets, err := b.store.OpenChangeSets(ctx, in.chat)
	if err != nil {
		b.log.Error("open change sets", "chat", in.chat, "err", err)
		return nod.ChangeSet{}, false
	}
	for _, s := range sets {
		if s.UserID == 0 || s.UserID == in.user {
			return s, true
		}
	}
	return nod.ChangeSet{}, false
}

// yesNo confirms or rejects a set's pending items from a text answer.
func (b *Bot) yesNo(ctx context.Context, in incoming) bool {
	confirm, items, ok := parseAnswer(in.text)
	if !ok {
		return false
	}
	set, found := b.answerTarget(ctx, in)
	if !found || !set.Status.Open() {
		if found {
			b.reply(ctx, in.chat, in.loc.Text("nothing_left", nil))
			return true
		}
		return false
	}
	var (
		d     agent.Decision
		err   error
		count int
		offer *nod.Rule
	)
	switch {
	case confirm && items == nil:
		d, err = b.decide.ConfirmAll(ctx, in.chat, in.user, set.ID)
		count = len(d.Applied)
	case !confirm:
		pending := len(set.Pending())
		d, err = b.decide.RejectAll(ctx, in.chat, in.user, set.ID)
		count = pending
	default:
		for _, n := range items {
			var one agent.Decision
			one, err = b.decide.Confirm(ctx, in.chat, in.user, set.ID, n)
			if one.Set.ID != "" {
				d.Set = one.Set
			}
			if one.Offer != nil {
				offer = one.Offer
			}
			if err == nil {
				if _, ok := one.Applied[n]; ok {
					count++
				}
			} else if !errors.Is(err, nod.ErrDecided) && !errors.Is(err, nod.ErrNotFound) {
				break
			}
			err = nil
		}
	}
	if d.Set.ID != "" {
		b.refresh(ctx, in.loc, d.Set, d.Failed, 0, d.Applied)
	}
	if err != nil && !errors.Is(err, nod.ErrDecided) {
		b.reply(ctx, in.chat, formatting.Message{HTML: formatting.Escape(b.explain(in.loc, err, "answer", "chat", in.chat))})
		return true
	}
	b.reply(ctx, in.chat, in.loc.Text("answered", map[string]any{"Confirmed": confirm, "Count": count}))
	if d.Offer != nil {
		offer = d.Offer
	}
	b.offerRule(ctx, in.loc, offer)
	return true
}

// reason stores a reply to a change set as the reason of its latest
// rejection, if that has none yet.
func (b *Bot) reason(ctx context.Context, in incoming) bool {
	if in.replyTo == 0 {
		return false
	}
	set, err := b.store.ChangeSetByMessage(ctx, in.chat, in.replyTo)
	if err != nil {
		return false
	}
	d, err := b.store.LatestRejection(ctx, set.ID)
	if err != nil || d.Reason != "" || (d.UserID != in.user && set.UserID != 0) {
		return false
	}
	if err := b.store.SetReason(ctx, d.ID, in.text); err != nil {
		return false
	}
	b.reply(ctx, in.chat, in.loc.Text("reason_noted", in.text))
	return true
}

var itemNumber = regexp.MustCompile(`(?i)(?:\bitem\s*|#)(\d+)\b|^\s*(\d+)[.:)]\s`)

// revision is the pending item a reply to a change-set message revises:
// the item its text names ("item 2", "#2", "2. …"), or the only pending
// one. nil when the text is not such a reply.
func (b *Bot) revision(ctx context.Context, in incoming) *nod.ItemRef {
	if in.replyTo == 0 {
		return nil
	}
	set, err := b.store.ChangeSetByMessage(ctx, in.chat, in.replyTo)
	if err != nil || !set.Status.Open() || (set.UserID != 0 && set.UserID != in.user) {
		return nil
	}
	pending := set.Pending()
	if m := itemNumber.FindStringSubmatch(in.text); m != nil {
		n, _ := strconv.Atoi(m[1] + m[2])
		if it, ok := set.Item(n); ok && it.Status == nod.ItemPending {
			return &nod.ItemRef{SetID: set.ID, N: n}
		}
	}
	if len(pending) == 1 {
		return &nod.ItemRef{SetID: set.ID, N: pending[0]}
	}
	return nil
}

func (b *Bot) cmdReview(ctx context.Context, in incoming) {
	b.turn(ctx, in, agent.Request{ChatID: in.chat, UserID: in.user, Review: true, Lang: in.loc.Code()})
}

func (b *Bot) cmdTrash(ctx context.Context, in incoming) {
	tasks, err := b.store.Trash(ctx, in.chat)
	if err != nil {
		b.log.Error("trash", "chat", in.chat, "err", err)
		b.reply(ctx, in.chat, in.loc.Text("internal_error", nil))
		return
	}
	b.reply(ctx, in.chat, in.loc.Trash(tasks))
}

func (b *Bot) onRestore(ctx context.Context, p press) string {
	applied, err := b.decide.Restore(ctx, p.chat, p.user, p.action.ID)
	if err != nil {
		return b.explain(p.loc, err, "restore", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		b.reply(ctx, p.chat, p.loc.WithUndo(p.loc.Text("restored", applied.After.Title), applied.Undo.ID))
	})
	return p.loc.Notice("n_restored", nil)
}
