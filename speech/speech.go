// Package speech turns a person's voice messages into text through an
// OpenAI-compatible /audio/transcriptions endpoint: OpenAI's own, or a
// local server that speaks the same API (speaches, whisper.cpp's server).
// It is openai-go's audio client and nothing more; what a transcript
// means is the bot's business.
package speech

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure a Transcriber.
type Options struct {
	BaseURL string // the endpoint, ending in /v1 for OpenAI
	APIKey  string // empty for local servers
	Model   string // default whisper-1
	// Timeout bounds one transcription, its one retry included (default
	// 2m): a five-minute voice message takes OpenAI seconds, a local
	// server on a small CPU far longer.
	Timeout time.Duration
	// Metrics, if set, receives the transcription counts and latency.
	Metrics prometheus.Registerer
}

// Transcriber transcribes audio. It is safe for concurrent use.
type Transcriber struct {
	opts    Options
	client  openai.Client
	log     *slog.Logger
	done    *prometheus.CounterVec
	latency prometheus.Histogram
}

// New returns a transcriber; nothing is sent until Transcribe.
func New(opts Options, log *slog.Logger) *Transcriber {
	if opts.Model == "" {
		opts.Model = "whisper-1"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	// One retry: a 5xx or a dropped connection is often gone a moment
	// later, and the person is waiting either way.
	client := openai.NewClient(option.WithBaseURL(opts.BaseURL), option.WithAPIKey(opts.APIKey), option.WithMaxRetries(1))
	t := &Transcriber{opts: opts, client: client, log: log,
		done: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_transcriptions_total",
			Help: "Voice messages transcribed, by outcome (ok, empty, failed)."}, []string{"outcome"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "nod_transcription_seconds",
			Help: "Latency of one transcription.", Buckets: prometheus.ExponentialBuckets(0.25, 2, 10)}),
	}
	if opts.Metrics != nil {
		opts.Metrics.MustRegister(t.done, t.latency)
	}
	return t
}

// Transcribe returns what is said in audio, a file called name (its
// extension tells the server the format: "voice.ogg") of type mimeType,
// trimmed; "" when nothing is said. An error wraps nod.ErrModel: the
// endpoint failed, timed out, or answered what is not a transcript.
func (t *Transcriber) Transcribe(ctx context.Context, audio []byte, name, mimeType string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	start := time.Now()
	// ResponseFormat stays unset (json): openai-go cannot decode the
	// text, srt and vtt formats into its result.
	res, err := t.client.Audio.Transcriptions.New(ctx, openai.AudioTranscriptionNewParams{
		File: openai.File(bytes.NewReader(audio), name, mimeType), Model: t.opts.Model})
	t.latency.Observe(time.Since(start).Seconds())
	if err != nil {
		t.done.WithLabelValues("failed").Inc()
		return "", fmt.Errorf("transcribe %d bytes with %s: %w: %w", len(audio), t.opts.Model, nod.ErrModel, err)
	}
	text := strings.TrimSpace(res.Text)
	outcome := "ok"
	if text == "" {
		outcome = "empty"
	}
	t.done.WithLabelValues(outcome).Inc()
	t.log.Debug("transcribed", "bytes", len(audio), "chars", len(text), "seconds", time.Since(start).Seconds())
	return text, nil
}
