package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// webmMagic starts every WebM (EBML) file, the format Chromium records.
var webmMagic = []byte{0x1a, 0x45, 0xdf, 0xa3}

// withSpeech runs the playground with a speech-to-text endpoint of its
// own that hears heard.
func withSpeech(t *testing.T, heard string) (*testPlayground, *openaitest.Server) {
	t.Helper()
	stt := openaitest.New(t)
	stt.HandleTranscriptions(openaitest.Heard(heard))
	env := map[string]string{"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000", "NOD_TRANSCRIBE_URL": stt.URL}
	return newPlayground(t, env, options{}), stt
}

func postVoice(t *testing.T, addr, query, typ string, audio []byte) (int, string) {
	t.Helper()
	resp, err := http.Post("http://"+addr+"/voice?"+query, typ, bytes.NewReader(audio))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func pageHTML(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// A recording the page sends is the person's voice message: nod fetches
// it from the Bot API stand-in, has it transcribed, says what it heard
// and acts on it; the chat shows the voice message as Telegram does.
func TestPlaygroundVoice(t *testing.T) {
	t.Parallel()
	tp, stt := withSpeech(t, "raise the login bug to P1")
	if !strings.Contains(pageHTML(t, tp.addr), `id="micButton"`) {
		t.Fatal("the page has no microphone though an endpoint transcribes")
	}
	rec := append(append([]byte{}, webmMagic...), bytes.Repeat([]byte("opus"), 300)...)
	if code, body := postVoice(t, tp.addr, "duration=2", "audio/webm;codecs=opus", rec); code != http.StatusNoContent {
		t.Fatalf("POST /voice: %d %s", code, body)
	}
	heard := tp.botSays("🎙 “raise the login bug to P1”")
	tp.botSays("because you said")
	v := tp.waitView("the voice message", func(v view) bool { return len(v.Msgs) > 0 })
	if first := v.Msgs[0]; first.Bot || first.HTML != "🎤 Voice message · 0:02" || heard.ReplyTo != first.ID {
		t.Errorf("the chat starts with %+v, and nod's 🎙 line replies to %d", first, heard.ReplyTo)
	}
	got := stt.Transcriptions()
	if len(got) != 1 || !bytes.Equal(got[0].Audio, rec) || got[0].Filename != "voice.webm" || got[0].ContentType != "audio/webm" {
		t.Fatalf("the endpoint heard %d recordings; want the page's %d bytes as voice.webm (audio/webm)", len(got), len(rec))
	}
	if code, _ := postVoice(t, tp.addr, "duration=2", "text/plain", []byte("hi")); code != http.StatusUnsupportedMediaType {
		t.Errorf("a text body as a recording: %d, want 415", code)
	}
	if code, _ := postVoice(t, tp.addr, "duration=soon", "audio/webm", rec); code != http.StatusBadRequest {
		t.Errorf("a recording without a duration: %d, want 400", code)
	}
}

// Without an endpoint for speech (the tour's fake transcribes nothing)
// the page offers no microphone, and a recording is refused.
func TestPlaygroundVoiceOff(t *testing.T) {
	t.Parallel()
	tp := newPlayground(t, nil, options{})
	if strings.Contains(pageHTML(t, tp.addr), `id="micButton"`) {
		t.Error("the page offers a microphone with nothing to transcribe")
	}
	if code, body := postVoice(t, tp.addr, "duration=1", "audio/webm", webmMagic); code != http.StatusNotFound || !strings.Contains(body, "NOD_TRANSCRIBE_URL") {
		t.Errorf("POST /voice without an endpoint: %d %q", code, body)
	}
}

// In a browser with a (fake) microphone: tap 🎤, speak a second, tap again;
// the recording reaches the endpoint as WebM, and nod acts on what it heard.
func TestPlaygroundVoiceInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browser(t, chromedp.Flag("use-fake-device-for-media-stream", true), chromedp.Flag("use-fake-ui-for-media-stream", true))
	tp, stt := withSpeech(t, "raise the login bug to P1")
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(412, 915, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate("http://"+tp.addr+"/"),
		chromedp.WaitVisible(chromedp.ID("micButton")),
		chromedp.Click(chromedp.ID("micButton")),
		// Recording: the button counts up; a second in, stop and send.
		chromedp.WaitVisible(chromedp.Search(`//button[@id="micButton" and contains(., "0:01")]`)),
		chromedp.Click(chromedp.ID("micButton")),
		chromedp.WaitVisible(chromedp.Search(`//div[@class="text" and contains(., "Voice message · 0:0")]`)),
		chromedp.WaitVisible(chromedp.Search(`//div[@class="text" and contains(., "🎙 “raise the login bug to P1”")]`)),
		chromedp.WaitVisible(chromedp.Search(`//div[@class="text" and contains(., "because you said")]`)),
		chromedp.WaitVisible(button("↩️ Undo")),
	)
	if err != nil {
		t.Fatalf("record a voice message: %v\nthe chat:\n%s", err, transcript(tp.view()))
	}
	got := stt.Transcriptions()
	if len(got) != 1 || !bytes.HasPrefix(got[0].Audio, webmMagic) || len(got[0].Audio) < 1000 || got[0].Filename != "voice.webm" {
		t.Fatalf("the endpoint heard %d recordings; the first %d bytes as %q; want a second of WebM as voice.webm", len(got), len(firstAudio(got)), fileName(got))
	}
}

func firstAudio(ts []openaitest.Transcription) []byte {
	if len(ts) == 0 {
		return nil
	}
	return ts[0].Audio
}

func fileName(ts []openaitest.Transcription) string {
	if len(ts) == 0 {
		return ""
	}
	return ts[0].Filename
}
