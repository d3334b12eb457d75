package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod/formatting"
)

// maxDownload is the largest file the Bot API lets a bot fetch; getFile
// answers "file is too big" above it.
const maxDownload = 20 << 20

// errTooBig marks a file past maxDownload.
var errTooBig = errors.New("file is too big to download")

// maxSoundRate bounds the bytes a second of sound may take: 40 kB, above
// MP3's highest rate (320 kbit/s) and ten times a voice note's Opus. A
// message's stated length is the sender's word, its bytes are what gets
// transcribed: a file may hold no more than VoiceMax at this rate.
const maxSoundRate = 40_000

// errTooLarge marks a file larger than the longest sound transcribed can be.
var errTooLarge = errors.New("file is larger than the longest sound transcribed")

// maxSound is the largest file nod fetches: VoiceMax of sound at
// maxSoundRate, and never past what the Bot API serves.
func (b *Bot) maxSound() int64 {
	return min(int64(b.opts.VoiceMax.Seconds()*maxSoundRate), maxDownload)
}

// oversize is the error of a file of size bytes past limit: errTooBig past
// what the Bot API serves, errTooLarge below it.
func oversize(size, limit int64) error {
	if size > maxDownload {
		return fmt.Errorf("%d bytes: %w", size, errTooBig)
	}
	return fmt.Errorf("%d bytes, more than %d: %w", size, limit, errTooLarge)
}

// sound is a voice message or an audio file as the message describes it.
type sound struct {
	fileID   string
	length   time.Duration
	size     int64 // 0 when Telegram did not say
	mimeType string
	name     string // what the transcriber is told the file is called
}

func soundOf(m *models.Message) sound {
	if v := m.Voice; v != nil {
		mime := orDefault(v.MimeType, "audio/ogg")
		return sound{fileID: v.FileID, length: time.Duration(v.Duration) * time.Second, size: v.FileSize, mimeType: mime, name: "voice" + extension(mime, "")}
	}
	a := m.Audio
	mime := orDefault(a.MimeType, "audio/mpeg")
	return sound{fileID: a.FileID, length: time.Duration(a.Duration) * time.Second, size: a.FileSize, mimeType: mime, name: "audio" + extension(mime, a.FileName)}
}

// extension names a sound file's format for the transcriber, which reads
// it from the name: the file's own extension, else its MIME type's.
// Telegram's voice notes are Opus in Ogg, stored as .oga; some endpoints
// (Groq) refuse that extension but take .ogg.
func extension(mime, name string) string {
	if ext := strings.ToLower(path.Ext(name)); ext != "" && ext != ".oga" {
		return ext
	}
	mime, _, _ = strings.Cut(mime, ";")
	switch strings.TrimSpace(strings.ToLower(mime)) {
	case "audio/mpeg", "audio/mp3":
		return ".mp3"
	case "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/aac":
		return ".m4a"
	case "audio/wav", "audio/x-wav", "audio/wave":
		return ".wav"
	case "audio/flac", "audio/x-flac":
		return ".flac"
	case "audio/webm", "video/webm":
		return ".webm"
	}
	return ".ogg"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// hear transcribes a voice message or audio file and replies to it with
// what nod heard (🎙 “…”); the transcript is then the person's words, as
// if typed. Too long, too big, silent or not transcribed, the person gets
// one line that says so (ok false) and nothing else happens. The length
// and size are checked before anything is fetched, the size again as
// getFile states it and as the file downloads.
func (b *Bot) hear(ctx context.Context, in incoming, m *models.Message) (text string, ok bool) {
	s := soundOf(m)
	switch {
	case s.length > b.opts.VoiceMax:
		b.replyTo(ctx, in, in.loc.VoiceTooLong(s.length, b.opts.VoiceMax))
		return "", false
	case s.size > maxDownload:
		b.replyTo(ctx, in, in.loc.Text(formatting.VoiceTooBig))
		return "", false
	case s.size > b.maxSound():
		b.replyTo(ctx, in, in.loc.VoiceTooLarge(b.opts.VoiceMax))
		return "", false
	}
	typed := make(chan struct{})
	go func() {
		defer close(typed)
		b.send.typing(ctx, in.topic())
	}()
	text, err := b.transcribe(ctx, s)
	<-typed
	if err != nil {
		// The update's time may be up: the person still hears why.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lateReplyTimeout)
		defer cancel()
		b.log.Warn("voice message not transcribed", "chat", in.chat, "seconds", s.length.Seconds(), "err", err)
		b.replyTo(ctx, in, b.notHeard(in.loc, err))
		return "", false
	}
	if text == "" {
		b.replyTo(ctx, in, in.loc.Text(formatting.VoiceEmpty))
		return "", false
	}
	b.replyTo(ctx, in, in.loc.Text(formatting.Heard.With(text)))
	return text, true
}

// notHeard is the line that says why a sound was not transcribed.
func (b *Bot) notHeard(loc *formatting.Locale, err error) formatting.Message {
	switch {
	case errors.Is(err, errTooBig):
		return loc.Text(formatting.VoiceTooBig)
	case errors.Is(err, errTooLarge):
		return loc.VoiceTooLarge(b.opts.VoiceMax)
	}
	return loc.Text(formatting.VoiceFailed)
}

// transcribe fetches the sound's file and has it transcribed.
func (b *Bot) transcribe(ctx context.Context, s sound) (string, error) {
	audio, err := b.download(ctx, s.fileID, b.maxSound())
	if err != nil {
		return "", err
	}
	return b.ears.Transcribe(ctx, audio, s.name, s.mimeType)
}

// download fetches a file a person sent, of at most limit bytes (at most
// maxDownload): getFile, then its URL, which holds the bot token and so
// never appears in an error or a log. Reading stops past limit, whatever
// size getFile stated.
func (b *Bot) download(ctx context.Context, fileID string, limit int64) ([]byte, error) {
	var f *models.File
	err := b.send.retry(ctx, "getFile", func() (err error) {
		f, err = b.tg.GetFile(ctx, &tgbot.GetFileParams{FileID: fileID})
		return err
	})
	switch {
	case err != nil && strings.Contains(err.Error(), "file is too big"):
		return nil, fmt.Errorf("get file: %w", errTooBig)
	case err != nil:
		return nil, fmt.Errorf("get file: %w", redactErr(err, b.opts.Token))
	case f.FileSize > limit:
		return nil, fmt.Errorf("get file: %w", oversize(f.FileSize, limit))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.tg.FileDownloadLink(f), nil)
	if err != nil {
		return nil, fmt.Errorf("download file: bad file path")
	}
	resp, err := b.files.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL
		}
		return nil, fmt.Errorf("download file: %w", redactErr(err, b.opts.Token))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download file: HTTP status %d", resp.StatusCode)
	}
	audio, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("download file: %w", redactErr(err, b.opts.Token))
	case int64(len(audio)) > limit:
		return nil, fmt.Errorf("download file: %w", oversize(int64(len(audio)), limit))
	}
	return audio, nil
}

// replyTo sends m as a reply to the person's message, logging a failure.
func (b *Bot) replyTo(ctx context.Context, in incoming, m formatting.Message) {
	if _, err := b.send.send(ctx, in.topic(), m, in.msgID); err != nil {
		b.sendFailed(ctx, err, "chat", in.chat)
	}
}
