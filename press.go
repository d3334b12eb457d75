package nod

import "context"

// Tap is a button press that a decision's own transaction settles: the
// update is marked handled there, so that a redelivery finds the mark
// exactly when it finds the decision, and the buttons the pressed
// message's edit will carry are recorded there, before the edit shows
// them. The store sets Marked once that transaction committed.
type Tap struct {
	Update  int64 // Telegram's update id
	Message int   // the pressed message, which shows the set
	// Buttons returns the callback data the message's edit will carry
	// for the decision as drawn; it may name more than the edit shows,
	// never less.
	Buttons func(Decided) []string
	Marked  bool
}

type tapKey struct{}

// WithTap returns ctx carrying t for the store's decision.
func WithTap(ctx context.Context, t *Tap) context.Context {
	return context.WithValue(ctx, tapKey{}, t)
}

// TapOf returns the tap ctx carries, or nil.
func TapOf(ctx context.Context) *Tap {
	t, _ := ctx.Value(tapKey{}).(*Tap)
	return t
}

// SentButton is a button a message was sent with, or edited to carry:
// the message and the button's callback data.
type SentButton struct {
	Message int
	Data    string
}
