package confirm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
)

// The person's answers in words, read in the order of docs/design.md
// §3.4: the caller asks AnswerDeletion first, then (after commands)
// AnswerInWords, then Reason; anything else goes to the agent, with the
// item a reply revises (Revision).

// read reads text with the service's words; nothing is read without them.
func (c *Service) read(text string) answer.Reading {
	if c.words == nil {
		return answer.Reading{}
	}
	return c.words.Read(text)
}

// AnswerDeletion answers the person's asked deletion in topic at with
// text, if one waits there: the task's title deletes it; a near miss (a
// typo or two) asks again; anything else cancels it. spoken says text was
// heard, not typed. The question ends once across deliveries of the same
// message: a delivery that finds it ended meanwhile is DeletionNone. When
// the deletion itself fails the outcome is DeletionDeleted, with the
// error: the question ended all the same.
func (c *Service) AnswerDeletion(ctx context.Context, at nod.Topic, userID nod.UserID, text string, spoken bool) (nod.DeletionAnswer, error) {
	d, ok, err := c.deletions.WaitingDeletion(ctx, at.ChatID, userID)
	if err != nil {
		return nod.DeletionAnswer{}, fmt.Errorf("waiting deletion: %w", err)
	}
	if !ok || d.Thread != at.Thread {
		return nod.DeletionAnswer{}, nil // none asked, or asked in another topic: answered there
	}
	out := nod.DeletionAnswer{Deletion: d}
	if !c.now().Before(d.ExpiresAt) {
		out.Outcome = nod.DeletionExpired
		return out, nil
	}
	typed := answer.ReadTitle(text, d.Title, spoken)
	if typed == answer.NearTitle {
		out.Outcome = nod.DeletionAgain
		return out, nil
	}
	if typed != answer.SameTitle {
		// Only this one: the next in the line is asked after it, as
		// docs/design.md §3.4 has it; its ✗ Keep all ends the line.
		ended, rest, err := c.deletions.CancelDeletion(ctx, at.ChatID, userID, d.ID, false, nod.KeptInWords)
		if err != nil {
			return nod.DeletionAnswer{}, fmt.Errorf("cancel deletion %s: %w", d.ID, err)
		}
		if !ended {
			return nod.DeletionAnswer{}, nil // ended meanwhile by another delivery of the answer
		}
		out.Outcome, out.Bare, out.Yes, out.Rest = nod.DeletionCancelled, c.read(text).Bare(), c.words != nil && c.words.OpensWithYes(text), rest
		return out, nil
	}
	ended, err := c.deletions.EndDeletion(ctx, at.ChatID, d.ID)
	if err != nil {
		return nod.DeletionAnswer{}, fmt.Errorf("end deletion %s: %w", d.ID, err)
	}
	if !ended {
		return nod.DeletionAnswer{}, nil // ended meanwhile by another delivery of the answer
	}
	out.Outcome = nod.DeletionDeleted
	out.Applied, err = c.Delete(ctx, at.ChatID, userID, d)
	return out, err
}

// KeepDeletion cancels deletion id without its title typed, from a tap
// on its question, message msgID: only the person asked may, and only on
// that message. line cancels the rest of their line with it. A deletion
// that left its line meanwhile (a second tap) is nod.ErrDecided.
func (c *Service) KeepDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID, msgID int, id nod.DeletionID, line bool) (nod.DeletionAnswer, error) {
	d, err := c.deletions.Deletion(ctx, chatID, id)
	if errors.Is(err, nod.ErrNotFound) {
		return nod.DeletionAnswer{}, fmt.Errorf("deletion %s: %w", id, nod.ErrDecided)
	}
	if err != nil {
		return nod.DeletionAnswer{}, err
	}
	if d.UserID != userID {
		return nod.DeletionAnswer{}, fmt.Errorf("deletion %s is user %d's: %w", id, d.UserID, nod.ErrForbidden)
	}
	if d.MessageID == 0 || d.MessageID != msgID {
		return nod.DeletionAnswer{}, fmt.Errorf("deletion %s asked on message %d, not %d: %w", id, d.MessageID, msgID, nod.ErrNotFound)
	}
	ended, rest, err := c.deletions.CancelDeletion(ctx, chatID, userID, id, line, "tapped ✗ to keep it")
	if err != nil {
		return nod.DeletionAnswer{}, fmt.Errorf("keep deletion %s: %w", id, err)
	}
	if !ended {
		return nod.DeletionAnswer{}, fmt.Errorf("deletion %s: %w", id, nod.ErrDecided)
	}
	return nod.DeletionAnswer{Outcome: nod.DeletionCancelled, Deletion: d, Rest: rest}, nil
}

// AskDeletion moves the person's line of deletions on: it reports the
// questions whose time ran out and the next one to ask, if any.
func (c *Service) AskDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.DeletionStep, error) {
	return c.deletions.AskDeletion(ctx, chatID, userID)
}

// answerTarget is the set a yes/no is about: the set of message replyTo
// when it is a reply, else the newest open set of the topic the person
// may decide.
func (c *Service) answerTarget(ctx context.Context, at nod.Topic, userID nod.UserID, replyTo int) (nod.ChangeSet, bool, error) {
	if replyTo != 0 {
		set, err := c.replies.ChangeSetByMessage(ctx, at.ChatID, replyTo)
		return set, err == nil, nil
	}
	sets, err := c.replies.OpenChangeSets(ctx, at)
	if err != nil {
		return nod.ChangeSet{}, false, fmt.Errorf("open change sets: %w", err)
	}
	for _, s := range sets {
		if s.UserID == 0 || s.UserID == userID {
			return s, true, nil
		}
	}
	return nod.ChangeSet{}, false, nil
}

// AnswerInWords decides a set's pending items from text when nod reads
// it whole: all of them ("yes", "no"), or those it names ("yes to 4 and
// 6, no to 5", "ja zu 1 und 3, 2 nicht", "all but 2"); items it does not
// name stay pending. The set is the one message replyTo shows, else the
// topic's newest the person may decide. Words with one nod cannot place
// are WordsNone: the agent reads them. With WordsDecided, an error is
// Answer's, and the outcome holds what was decided before it.
func (c *Service) AnswerInWords(ctx context.Context, at nod.Topic, userID nod.UserID, replyTo int, text string) (nod.WordsAnswer, error) {
	r := c.read(text)
	if !r.Whole {
		return nod.WordsAnswer{}, nil
	}
	set, found, err := c.answerTarget(ctx, at, userID, replyTo)
	if err != nil || !found {
		return nod.WordsAnswer{}, err
	}
	out := nod.WordsAnswer{Set: set}
	if !set.Status.Open() {
		out.Outcome = nod.WordsNothingLeft
		return out, nil
	}
	yes, no, unknown := r.On(set)
	if unknown != 0 {
		out.Outcome, out.Unknown = nod.WordsUnknown, unknown
		return out, nil
	}
	out.Outcome = nod.WordsDecided
	out.Reading = nod.Reading{SetID: set.ID, Confirm: yes, Reject: no, Words: text}
	out.Decided, out.Rejected, err = c.Answer(ctx, at.ChatID, userID, out.Reading)
	return out, err
}

// AcceptReading decides a reading of the person's words that nod showed
// them, once, for the person who stated it.
func (c *Service) AcceptReading(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id string) (nod.WordsAnswer, error) {
	r, err := c.replies.TakeReading(ctx, chatID, id, userID)
	if err != nil {
		return nod.WordsAnswer{}, err
	}
	out := nod.WordsAnswer{Outcome: nod.WordsDecided, Reading: r}
	out.Decided, out.Rejected, err = c.Answer(ctx, chatID, userID, r)
	out.Set = out.Decided.Set
	return out, err
}

var anyNumber = regexp.MustCompile(`\d{1,3}`)

// Reason stores text, a reply to message replyTo showing a change set, as
// the reason of the set's latest rejection, if that is the person's and
// has none yet. A text that names a pending item is not a reason but an
// answer or an edit, for the agent; nor is one that could not be stored.
func (c *Service) Reason(ctx context.Context, chatID nod.ChatID, userID nod.UserID, replyTo int, text string) (nod.ReasonOutcome, error) {
	if replyTo == 0 {
		return nod.ReasonNone, nil
	}
	set, err := c.replies.ChangeSetByMessage(ctx, chatID, replyTo)
	if err != nil {
		return nod.ReasonNone, nil
	}
	d, err := c.replies.LatestRejection(ctx, set.ID)
	if err != nil || d.Reason != "" || d.UserID != userID { // only who rejected it says why
		return nod.ReasonNone, nil
	}
	for _, s := range anyNumber.FindAllString(text, -1) {
		n, _ := strconv.Atoi(s)
		if it, ok := set.Item(n); ok && it.Status == nod.ItemPending {
			return nod.ReasonNone, nil
		}
	}
	if utf8.RuneCountInString(text) > nod.MaxReasonLen {
		return nod.ReasonTooLong, nil
	}
	if err := c.replies.SetReason(ctx, d.ID, text); err != nil {
		return nod.ReasonNone, fmt.Errorf("set reason of %s: %w", d.ID, err)
	}
	return nod.ReasonNoted, nil
}

var itemNumber = regexp.MustCompile(`(?i)(?:\bitem\s*|#)(\d+)\b|^\s*(\d+)[.:)]\s`)

// Revision is the pending item text, a reply to message replyTo, revises:
// the item its text names ("item 2", "#2", "2. …"), or the only pending
// one of a set the person may decide. nil when the text is not such a
// reply.
func (c *Service) Revision(ctx context.Context, chatID nod.ChatID, userID nod.UserID, replyTo int, text string) *nod.ItemRef {
	if replyTo == 0 {
		return nil
	}
	set, err := c.replies.ChangeSetByMessage(ctx, chatID, replyTo)
	if err != nil || !set.Status.Open() || !set.DecidableBy(userID) {
		return nil
	}
	pending := set.Pending()
	if m := itemNumber.FindStringSubmatch(text); m != nil {
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
