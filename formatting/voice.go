package formatting

import (
	"fmt"
	"time"
)

// VoiceTooLong says that a voice message of length is longer than the
// max nod transcribes, both as Telegram's player shows lengths (7:30).
func (l *Locale) VoiceTooLong(length, max time.Duration) Message {
	return l.Text(voiceTooLong.With(voiceLength{Length: clock(length), Max: clock(max)}))
}

var voiceTooLong = define[voiceLength]("voice_too_long")

// VoiceTooLarge says that a voice message's file is larger than max of
// sound can be, whatever length it states.
func (l *Locale) VoiceTooLarge(max time.Duration) Message {
	return l.Text(voiceTooLarge.With(clock(max)))
}

var voiceTooLarge = define[string]("voice_too_large")

// voiceLength is a voice message's Length and the Max nod transcribes,
// as clock writes them.
type voiceLength struct{ Length, Max string }

// clock renders d as m:ss, or h:mm:ss from an hour on, rounded up to the
// second: a message a moment over the limit never reads as equal to it.
func clock(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
