package speech_test

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/nodbot/nod"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/speech"
)

var ogg = append([]byte("OggS\x00\x02"), bytes.Repeat([]byte{7}, 500)...)

func newTranscriber(llm *openaitest.Server, timeout time.Duration) *speech.Transcriber {
	return speech.New(speech.Options{BaseURL: llm.URL, APIKey: "sk-test", Model: "stt-model", Timeout: timeout}, slog.New(slog.DiscardHandler))
}

// The audio goes as openai-go sends it: a multipart form with the file,
// named so the server knows its format, and the model; nothing else.
func TestTranscribe(t *testing.T) {
	llm := openaitest.New(t)
	llm.HandleTranscriptions(openaitest.Heard("  raise the login bug to P1 \n"))
	text, err := newTranscriber(llm, 0).Transcribe(t.Context(), ogg, "voice.ogg", "audio/ogg")
	if err != nil || text != "raise the login bug to P1" {
		t.Fatalf("Transcribe = %q, %v; want the trimmed transcript", text, err)
	}
	got := llm.Transcriptions()
	if len(got) != 1 {
		t.Fatalf("%d transcription requests, want 1", len(got))
	}
	h := got[0]
	if h.Model != "stt-model" || h.Filename != "voice.ogg" || h.ContentType != "audio/ogg" || !bytes.Equal(h.Audio, ogg) {
		t.Errorf("server heard model %q, file %q (%s), %d bytes; want stt-model, voice.ogg (audio/ogg), the %d bytes sent",
			h.Model, h.Filename, h.ContentType, len(h.Audio), len(ogg))
	}
	if h.ResponseFormat != "" || h.Language != "" || h.Prompt != "" {
		t.Errorf("optional parts sent: format %q, language %q, prompt %q", h.ResponseFormat, h.Language, h.Prompt)
	}
}

// Silence is no error: the transcript is empty, and the caller says so.
func TestTranscribeSilence(t *testing.T) {
	llm := openaitest.New(t)
	llm.HandleTranscriptions(openaitest.Heard(" "))
	if text, err := newTranscriber(llm, 0).Transcribe(t.Context(), ogg, "voice.ogg", "audio/ogg"); err != nil || text != "" {
		t.Errorf("Transcribe(silence) = %q, %v; want \"\", nil", text, err)
	}
}

// Every failure of the endpoint is an error wrapping nod.ErrModel, within
// the transcriber's own timeout.
func TestTranscribeFailures(t *testing.T) {
	for _, c := range []struct {
		name  string
		resp  openaitest.Response
		tries int
	}{
		{"5xx", openaitest.Response{Status: 503}, 2}, // retried once
		{"401", openaitest.Response{Status: 401, Body: `{"error":{"message":"bad key"}}`}, 1},
		{"bad JSON", openaitest.Response{Body: `{"text": "half`}, 1},
		{"slow", openaitest.Response{Text: "too late", Delay: 10 * time.Second}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			llm := openaitest.New(t)
			llm.HandleTranscriptions(func(openaitest.Transcription) openaitest.Response { return c.resp })
			start := time.Now()
			text, err := newTranscriber(llm, 300*time.Millisecond).Transcribe(t.Context(), ogg, "voice.ogg", "audio/ogg")
			if !errors.Is(err, nod.ErrModel) || text != "" {
				t.Errorf("Transcribe = %q, %v; want an error wrapping nod.ErrModel", text, err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v; the timeout is 300ms", d)
			}
			if n := len(llm.Transcriptions()); c.tries > 0 && n != c.tries {
				t.Errorf("%d requests, want %d", n, c.tries)
			}
		})
	}
}
