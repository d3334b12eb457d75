package main

import (
	"bytes"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// A few seconds of Opus in Ogg, as far as any test can tell.
var oggVoice = append([]byte("OggS\x00\x02voice"), bytes.Repeat([]byte{0x4f, 0x70}, 2000)...)

// noTranscription fails the test on any transcription: the handler set on
// servers that must not hear from nod.
func noTranscription(t *testing.T) func(openaitest.Transcription) openaitest.Response {
	return func(openaitest.Transcription) openaitest.Response {
		t.Error("a transcription was asked for")
		return openaitest.Response{Status: 500}
	}
}

// docs/design.md §11: a voice message is the person's words. nod fetches
// the file (getFile, then the download URL), has it transcribed at
// NOD_TRANSCRIBE_URL with NOD_TRANSCRIBE_MODEL, replies to the voice
// message with what it heard, and handles the transcript as typed text:
// the classifier reads it as the person's line and quotes it, and the
// receipt says so.
func TestVoiceMessageApplied(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	stt := openaitest.New(t) // a speech-to-text endpoint of its own
	stt.HandleTranscriptions(openaitest.Heard("Raise the login bug to P1."))
	h.llm.HandleTranscriptions(noTranscription(t))
	h.env["NOD_TRANSCRIBE_URL"], h.env["NOD_TRANSCRIBE_MODEL"] = stt.URL, "stt-model"
	h.clf = answer("explicit:Raise the login bug to P1")
	h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Raised."))
	h.start()
	voice := h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 4})
	msgs := h.tg.WaitBotMessages(chat, 3)
	heard, receipt, reply := msgs[0], msgs[1], msgs[2]
	if heard.Text != "🎙 “Raise the login bug to P1.”" || heard.ReplyTo != voice {
		t.Errorf("first message = %q replying to %d; want what nod heard, replying to the voice message %d", heard.Text, heard.ReplyTo, voice)
	}
	if !strings.Contains(receipt.Text, "because you said “Raise the login bug to P1”") || !hasButton(receipt, "↩️ Undo") {
		t.Errorf("receipt = %q %v; want the transcript quoted and Undo", receipt.Text, buttonTexts(receipt))
	}
	if reply.Text != "Raised." {
		t.Errorf("reply = %q", reply.Text)
	}
	if got := h.task("T1").Priority; got != nod.P1 {
		t.Errorf("priority = %s, want P1", got)
	}
	if a := h.audit(chat)[0]; a.Outcome != nod.OutcomeExecuted || a.Verdict != "explicit" || a.Reason != "Raise the login bug to P1" {
		t.Errorf("audit = %+v", a)
	}

	// What reached the speech endpoint: the voice message's bytes, named
	// .ogg, for the configured model, fetched as Telegram serves files.
	got := stt.Transcriptions()
	if len(got) != 1 || got[0].Model != "stt-model" || got[0].Filename != "voice.ogg" || got[0].ContentType != "audio/ogg" || !bytes.Equal(got[0].Audio, oggVoice) {
		t.Fatalf("transcriptions = %d; first %+v; want one of the voice message's %d bytes, as voice.ogg, for stt-model", len(got), firstOf(got), len(oggVoice))
	}
	if g, d := h.tg.Calls("getFile"), h.tg.Calls("download"); len(g) != 1 || len(d) != 1 || !strings.HasPrefix(d[0].Params.Get("file_path"), "voice/") {
		t.Errorf("getFile calls %v, downloads %v; want one of each", g, d)
	}
	// The model and the classifier read the transcript as the person's
	// own line, as if typed.
	if last := h.llm.RequestsFor(agentM)[0].Messages; last[len(last)-1].Role != "user" || !strings.Contains(last[len(last)-1].Content, "Raise the login bug to P1.") {
		t.Errorf("agent's last message = %+v; want the transcript as the person's", last[len(last)-1])
	}
	if conv := h.llm.RequestsFor(clfM)[0].Messages; !strings.Contains(conv[1].Content, "\nUser: Raise the login bug to P1.") {
		t.Errorf("classifier request lacks the transcript as the person's line: %+v", conv)
	}
}

// An audio file (📎 → File, music) is heard as a voice message is; it
// goes to the endpoint under its own format's extension.
func TestAudioFile(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.llm.HandleTranscriptions(openaitest.Heard("What is due this week?"))
	h.script(openaitest.Text("Nothing is due this week."))
	h.start()
	audio := h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 3, Audio: true, FileName: "Standup.M4A", MimeType: "audio/mp4"})
	msgs := h.tg.WaitBotMessages(chat, 2)
	if msgs[0].Text != "🎙 “What is due this week?”" || msgs[0].ReplyTo != audio || msgs[1].Text != "Nothing is due this week." {
		t.Errorf("audio file: %q replying to %d, then %q", msgs[0].Text, msgs[0].ReplyTo, msgs[1].Text)
	}
	if got := h.llm.Transcriptions(); len(got) != 1 || got[0].Filename != "audio.m4a" || got[0].ContentType != "audio/mp4" || got[0].Model != "whisper-1" {
		t.Errorf("transcriptions %+v; want one of audio.m4a (audio/mp4) with the default model", firstOf(got))
	}
}

// A forwarded voice message is someone else's words, heard: the agent
// and the classifier are told so, and a quote from it never makes a
// change explicit.
func TestForwardedVoiceAsks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.llm.HandleTranscriptions(openaitest.Heard("Raise the login bug to P1."))
	h.clf = answer("explicit:Raise the login bug to P1")
	h.raiseT1()
	h.start()
	h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 3, Origin: telegramtest.OriginUser(7007, "Boss", bossSent)})
	set := h.changeSetMessage(chat, 3)
	if heard := h.tg.BotMessages(chat)[0].Text; heard != "🎙 “Raise the login bug to P1.”" {
		t.Errorf("first message = %q", heard)
	}
	if got := h.task("T1").Priority; got != nod.P3 || !hasButton(set, "✓ 1") {
		t.Fatalf("a forwarded voice message applied a change: priority %s", got)
	}
	if got := userLines(h.llm.RequestsFor(agentM)[0]); len(got) != 1 || !strings.HasPrefix(got[0], "(forwarded: a message from Boss (7007)") {
		t.Errorf("the agent read %q", got)
	}
}

// A "yes" said is a "yes" typed: it decides the change set it answers,
// without the model.
func TestVoiceAnswersChangeSet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.llm.HandleTranscriptions(openaitest.Heard("Yes."))
	set := h.startWithRaise("the login bug matters")
	agentCalls := len(h.llm.RequestsFor(agentM))
	voice := h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 1, ReplyTo: set.ID})
	msgs := h.tg.WaitBotMessages(chat, 3)
	if msgs[2].Text != "🎙 “Yes.”" || msgs[2].ReplyTo != voice {
		t.Errorf("heard = %q replying to %d", msgs[2].Text, msgs[2].ReplyTo)
	}
	h.tg.Wait("the spoken yes to apply", func() bool { return h.task("T1").Priority == nod.P1 })
	h.tg.WaitMessage(chat, set.ID, "the set's message to show Undo", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 1") })
	if n := len(h.llm.RequestsFor(agentM)); n != agentCalls {
		t.Errorf("the model was asked %d more times; a spoken yes is read by nod", n-agentCalls)
	}
}

// A deletion waits for the task's title; said aloud, it counts as typed,
// though speech to text ends it with a full stop.
func TestVoiceConfirmsDeletion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.llm.HandleTranscriptions(openaitest.Heard("Fix login bug."))
	h.clf = answer("explicit:delete the login bug")
	h.script(openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": "T1"})), openaitest.Text("It goes to the trash once you confirm."))
	h.start()
	h.tg.SendText(chat, user, "delete the login bug")
	h.tg.WaitBotMessages(chat, 2) // the reply and nod's question
	h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 2})
	msgs := h.tg.WaitBotMessages(chat, 4)
	if msgs[2].Text != "🎙 “Fix login bug.”" || !hasButton(msgs[3], "↩️ Undo") {
		t.Errorf("after the spoken title: %q, %q %v", msgs[2].Text, msgs[3].Text, buttonTexts(msgs[3]))
	}
	if _, err := h.db.Tasks().Task(t.Context(), chat, "T1"); !errors.Is(err, nod.ErrNotFound) {
		t.Errorf("T1 after its spoken title: %v; want it in the trash", err)
	}
}

// A voice message longer than NOD_VOICE_MAX gets one line that says how
// long it is and how long it may be, before anything is fetched: no
// getFile, no download, no transcription. The next message works.
func TestVoiceTooLong(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.llm.HandleTranscriptions(noTranscription(t))
	h.env["NOD_VOICE_MAX"] = "2m"
	h.script(openaitest.Text("Hello."))
	h.start()
	voice := h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 150})
	m := h.tg.WaitBotMessages(chat, 1)[0]
	if !strings.Contains(m.Text, "2:30 long") || !strings.Contains(m.Text, "up to 2:00") || !strings.Contains(m.Text, "type it") || m.ReplyTo != voice {
		t.Errorf("too long = %q replying to %d", m.Text, m.ReplyTo)
	}
	h.nextWorks(2)
	if g, d := len(h.tg.Calls("getFile")), len(h.tg.Calls("download")); g+d != 0 {
		t.Errorf("getFile %d times, downloads %d; want none", g, d)
	}
	if len(h.llm.RequestsFor(agentM)) != 1 || len(h.llm.RequestsFor(agentM)[0].Messages) == 0 {
		t.Fatalf("agent requests: %d", len(h.llm.RequestsFor(agentM)))
	}
}

// A file over the Bot API's 20 MB is refused from what the message says
// (no getFile); one whose message states no size is refused when getFile
// answers "file is too big". Neither is downloaded or transcribed.
func TestVoiceTooBig(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.llm.HandleTranscriptions(noTranscription(t))
	h.start()
	h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Size: 25 << 20, Duration: 60})
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "20 MB") {
		t.Errorf("too big = %q", m.Text)
	}
	if n := len(h.tg.Calls("getFile")); n != 0 {
		t.Errorf("getFile called %d times for a file the message says is too big", n)
	}
	h.tg.Strict = false // the Bot API's 400 is expected here
	h.tg.SendVoice(chat, user, telegramtest.Voice{Data: make([]byte, 21<<20), Size: -1, Audio: true, FileName: "memo.mp3", Duration: 60})
	if m := h.tg.WaitBotMessages(chat, 2)[1]; !strings.Contains(m.Text, "20 MB") {
		t.Errorf("too big (from getFile) = %q", m.Text)
	}
	if g, d := len(h.tg.Calls("getFile")), len(h.tg.Calls("download")); g != 1 || d != 0 {
		t.Errorf("getFile %d times, downloads %d; want 1 and 0", g, d)
	}
}

// A failed transcription (a 5xx, an answer that is not JSON, silence) or
// download is one clear line replying to the voice message; the model is
// not asked, nothing is applied, the token appears in no log (the harness
// checks), and the next message works.
func TestVoiceFailures(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	answers := []openaitest.Response{{Status: 503}, {Status: 503}, {Body: `{"text": "Raise`}, openaitest.Text("  ")}
	h.llm.HandleTranscriptions(func(openaitest.Transcription) openaitest.Response {
		r := answers[0]
		answers = answers[1:]
		return r
	})
	h.script(openaitest.Text("Hello."))
	h.start()
	for i, want := range []string{"couldn't transcribe", "couldn't transcribe", "couldn't hear any words"} {
		voice := h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 3})
		m := h.tg.WaitBotMessages(chat, i+1)[i]
		if !strings.Contains(m.Text, want) || !strings.Contains(m.Text, "type it") || m.ReplyTo != voice {
			t.Errorf("voice %d: %q replying to %d; want %q", i+1, m.Text, m.ReplyTo, want)
		}
	}
	if n := len(h.llm.Transcriptions()); n != 4 {
		t.Errorf("%d transcription requests; want 4 (a 5xx is tried twice)", n)
	}
	// The file cannot be fetched: the same line, and no transcription.
	h.tg.Wire().SetFault(func(method string, _ url.Values) *telegramtest.Error {
		if method == "download" {
			return &telegramtest.Error{Code: 502, Description: "Bad Gateway"}
		}
		return nil
	})
	h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 3})
	if m := h.tg.WaitBotMessages(chat, 4)[3]; !strings.Contains(m.Text, "couldn't transcribe") {
		t.Errorf("failed download = %q", m.Text)
	}
	h.tg.Wire().SetFault(nil)
	if n := len(h.llm.Transcriptions()); n != 4 {
		t.Errorf("a file that was not fetched was transcribed")
	}
	if n := len(h.llm.RequestsFor(agentM)) + len(h.llm.RequestsFor(clfM)); n != 0 {
		t.Errorf("the models were asked %d times about voice messages nod did not hear", n)
	}
	if got := h.task("T1").Priority; got != nod.P3 || len(h.audit(chat)) != 1 {
		t.Errorf("priority %s, %d audit rows; want nothing changed", got, len(h.audit(chat)))
	}
	h.nextWorks(5)
}

// A transcription slower than the update's deadline is cut; the person
// still hears why, and the next message works.
func TestVoiceSlowTranscription(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_UPDATE_TIMEOUT"] = "2s"
	h.llm.HandleTranscriptions(func(openaitest.Transcription) openaitest.Response {
		return openaitest.Response{Text: "too late", Delay: time.Minute} // cut when nod gives up
	})
	h.script(openaitest.Text("Hello."))
	h.start()
	h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 3})
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "couldn't transcribe") {
		t.Errorf("slow transcription = %q", m.Text)
	}
	h.nextWorks(2)
}

// docs/design.md §11: a photo or file with a caption is its caption's
// text; without one, nod says it cannot look at attachments. Other
// messages it cannot read (a sticker) get the line that says what it can.
func TestCaptions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:raise the login bug to P1")
	h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Raised."),
		openaitest.Text("It is a PDF; I cannot open it."))
	h.start()
	h.tg.SendPhoto(chat, user, "raise the login bug to P1")
	msgs := h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(msgs[0].Text, "because you said “raise the login bug to P1”") || msgs[1].Text != "Raised." {
		t.Errorf("photo with caption: %q, %q", msgs[0].Text, msgs[1].Text)
	}
	if last := h.llm.RequestsFor(agentM)[0].Messages; !strings.Contains(last[len(last)-1].Content, "raise the login bug to P1") {
		t.Errorf("agent's last message = %+v; want the caption", last[len(last)-1])
	}
	h.tg.SendDocument(chat, user, "spec.pdf", "what is in this file?")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; m.Text != "It is a PDF; I cannot open it." {
		t.Errorf("file with caption answered %q", m.Text)
	}
	h.tg.SendPhoto(chat, user, "")
	if m := h.tg.WaitBotMessages(chat, 4)[3]; !strings.Contains(m.Text, "can't look at photos or files") || !strings.Contains(m.Text, "caption") {
		t.Errorf("photo without caption = %q", m.Text)
	}
	h.tg.Wire().SendUpdate(map[string]any{"message": map[string]any{"message_id": 90, "date": 1, "chat": map[string]any{"id": chat, "type": "private"},
		"from":    map[string]any{"id": user, "is_bot": false, "first_name": "User"},
		"sticker": map[string]any{"file_id": "st", "file_unique_id": "st", "type": "regular", "width": 512, "height": 512, "is_animated": false, "is_video": false}}})
	if m := h.tg.WaitBotMessages(chat, 5)[4]; m.Text != "I can only read text and voice messages." {
		t.Errorf("sticker = %q", m.Text)
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 3 {
		t.Errorf("%d agent requests; want 3 (the photo's two steps, the file's one)", n)
	}
}

// A German chat hears German: what nod heard, and why it heard nothing.
func TestVoiceInGerman(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tg.Wire().SetLanguage(user, "de")
	h.llm.HandleTranscriptions(openaitest.Heard("Was steht heute an?"))
	h.script(openaitest.Text("Nichts Dringendes."))
	h.start()
	h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 2})
	msgs := h.tg.WaitBotMessages(chat, 2)
	if msgs[0].Text != "🎙 „Was steht heute an?“" || msgs[1].Text != "Nichts Dringendes." {
		t.Errorf("German voice message: %q, %q", msgs[0].Text, msgs[1].Text)
	}
	h.tg.SendVoice(chat, user, telegramtest.Voice{Data: oggVoice, Duration: 400})
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "Diese Sprachnachricht ist 6:40 lang") || !strings.Contains(m.Text, "tipp sie") {
		t.Errorf("German too long = %q", m.Text)
	}
	h.tg.SendPhoto(chat, user, "")
	if m := h.tg.WaitBotMessages(chat, 4)[3]; !strings.Contains(m.Text, "Fotos und Dateien kann ich nicht ansehen") {
		t.Errorf("German photo without caption = %q", m.Text)
	}
}

// nextWorks checks that after a voice message nod did not hear, a typed
// message is answered as ever (the script's "Hello."), as the bot's n-th
// message in the chat.
func (h *harness) nextWorks(n int) {
	h.t.Helper()
	h.tg.SendText(chat, user, "hi")
	if m := h.tg.WaitBotMessages(chat, n)[n-1]; m.Text != "Hello." {
		h.t.Errorf("the next message was answered %q", m.Text)
	}
}

func firstOf(ts []openaitest.Transcription) openaitest.Transcription {
	if len(ts) == 0 {
		return openaitest.Transcription{}
	}
	t := ts[0]
	t.Audio = nil // its length is in the message
	return t
}

// The length a voice message or audio file states is the sender's word;
// its bytes are what gets transcribed. A file larger than NOD_VOICE_MAX
// of sound can be (40 kB a second, above MP3's highest rate) is refused
// with one line, however short it says it is: from the size the message
// states (no getFile), from getFile's when the message states none (no
// download), and from the bytes downloaded when both understate it
// (reading stops past the bound). Nothing is transcribed.
func TestVoiceSizeBoundsLength(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.llm.HandleTranscriptions(noTranscription(t))
	h.env["NOD_VOICE_MAX"] = "10s" // at most 400 kB
	h.script(openaitest.Text("Hello."))
	h.start()
	big := bytes.Repeat([]byte{0x4f}, 1<<20)
	for i, c := range []struct {
		name      string
		v         telegramtest.Voice
		getFile   int
		downloads int
	}{
		{"stated by the message", telegramtest.Voice{Data: big, Duration: 2}, 0, 0},
		{"stated by getFile", telegramtest.Voice{Data: big, Size: -1, Audio: true, FileName: "memo.mp3", Duration: 2}, 1, 0},
		{"understated by both", telegramtest.Voice{Data: big, Size: 1000, Duration: 2}, 2, 1},
	} {
		voice := h.tg.SendVoice(chat, user, c.v)
		m := h.tg.WaitBotMessages(chat, i+1)[i]
		if !strings.Contains(m.Text, "0:10") || !strings.Contains(m.Text, "type it") || m.ReplyTo != voice {
			t.Errorf("%s: %q replying to %d", c.name, m.Text, m.ReplyTo)
		}
		if g, d := len(h.tg.Calls("getFile")), len(h.tg.Calls("download")); g != c.getFile || d != c.downloads {
			t.Errorf("%s: getFile %d times, downloads %d; want %d, %d", c.name, g, d, c.getFile, c.downloads)
		}
	}
	h.nextWorks(4)
	if n := len(h.llm.RequestsFor(agentM)); n != 1 {
		t.Errorf("%d agent requests, want 1 (the next message's)", n)
	}
}
