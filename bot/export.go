package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// errUploadTooBig ends an upload past the upload limit.
var errUploadTooBig = errors.New("file larger than the upload limit")

// errUploadEnded stops a file's writer once its upload is over.
var errUploadEnded = errors.New("upload ended")

// exportFile is one file of an export: how it is written, and what
// became of it.
type exportFile struct {
	name    string
	caption formatting.Message
	write   func(io.Writer) error
	size    int64
	err     error // nil: sent
}

// cmdExport sends the person their data as two files, a JSON of
// everything and a CSV table of the tasks (docs/design.md §15), read in
// one consistent read and written into the uploads as they go. A private
// chat's export holds everything of the chat; in a group it holds only
// the person's own and goes to their private chat with the bot, never
// into the group, which is told it went (or that the person must open
// that chat first). The export itself is audited.
func (b *Bot) cmdExport(ctx context.Context, in incoming) {
	if b.exports == nil {
		b.log.Error("export: no exporter wired")
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	group := in.speaker != ""
	scope := nod.ExportScope{ChatID: in.chat, UserID: in.user, Own: group}
	to, name := in.topic(), ""
	if group {
		to, name = nod.Topic{ChatID: nod.ChatID(in.user)}, b.nameOf(ctx, in.chat, in.user) // a person's private chat has their id
	}
	zone, now := b.zone(in.settings), b.now()
	loc, day := in.loc.In(zone), now.In(zone).Format(nod.DateLayout)
	var (
		files  []*exportFile
		counts nod.ExportCounts
	)
	err := b.exports.Export(ctx, scope, func(e nod.Export) error {
		counts = e.Counts
		plan := []*exportFile{
			{name: formatting.ExportJSONName(day), caption: loc.Text(formatting.ExportCaption.With(formatting.ExportFiles{Day: day, Own: group, Counts: e.Counts})),
				write: func(w io.Writer) error { return formatting.ExportJSON(w, e, zone, now) }},
			{name: formatting.ExportCSVName(day), caption: loc.Text(formatting.ExportTableCaption),
				write: func(w io.Writer) error { return formatting.ExportCSV(w, e, zone) }},
		}
		for _, f := range plan {
			f.size, f.err = b.send.document(ctx, to, f.name, f.caption, b.opts.MaxUpload, f.write)
			files = append(files, f) // tried
			if errors.Is(f.err, tgbot.ErrorForbidden) || ctx.Err() != nil {
				break // nothing goes to that chat
			}
		}
		return nil
	})
	if err != nil {
		b.log.Error("export", "chat", in.chat, "user", in.user, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	b.exported(ctx, in, to, name, loc, files, counts)
}

// exported tells the person what became of their export's files, and
// records it in the audit log: executed when every file went, failed
// otherwise. What went wrong with a file is said where the files go; in
// a group that nothing reached, in the group, which otherwise hears one
// line: that the files went, or that the private chat must be opened.
func (b *Bot) exported(ctx context.Context, in incoming, to nod.Topic, name string, loc *formatting.Locale, files []*exportFile, counts nod.ExportCounts) {
	type fileRecord struct {
		Name  string `json:"name"`
		Bytes int64  `json:"bytes"`
		Sent  bool   `json:"sent"`
	}
	var (
		records      []fileRecord
		sent, closed bool
		trouble      string // for the audit row
		notices      []formatting.Message
	)
	mb := int(b.opts.MaxUpload >> 20)
	for _, f := range files {
		records = append(records, fileRecord{Name: f.name, Bytes: f.size, Sent: f.err == nil})
		if f.err == nil {
			sent = true
			continue
		}
		b.log.Warn("export file not sent", "chat", in.chat, "user", in.user, "file", f.name, "bytes", f.size, "err", redactErr(f.err, b.opts.Token))
		what, notice := "not sent", formatting.ExportFailed.With(formatting.ExportTrouble{File: f.name, MB: mb})
		switch {
		case errors.Is(f.err, tgbot.ErrorForbidden):
			closed, what = true, "the private chat is not open"
		case errors.Is(f.err, errUploadTooBig):
			what, notice = "too big", formatting.ExportTooBig.With(formatting.ExportTrouble{File: f.name, MB: mb})
		}
		if trouble == "" {
			trouble = what
		}
		if !closed {
			notices = append(notices, loc.Text(notice))
		}
	}
	group := to != in.topic()
	switch {
	case group && sent:
		b.reply(ctx, in.topic(), in.loc.Text(formatting.ExportSent.With(name)))
	case group && closed:
		b.reply(ctx, in.topic(), in.loc.Text(formatting.ExportStartPrivate.With(name)))
	case group && len(notices) > 0:
		b.reply(ctx, in.topic(), notices[0])
		notices = nil
	}
	for _, m := range notices {
		b.reply(ctx, to, m)
	}
	scope := "chat"
	if group {
		scope = "own"
	}
	args, _ := json.Marshal(map[string]any{"scope": scope, "to": to.ChatID, "files": records,
		"counts": map[string]int{"tasks": counts.Tasks, "reminders": counts.Reminders, "audit": counts.Audit}})
	a := nod.AuditEntry{ChatID: in.chat, UserID: in.user, Args: args, Outcome: nod.OutcomeExecuted, UserConfirmed: true}
	if trouble != "" {
		a.Outcome, a.Error = nod.OutcomeFailed, trouble
	}
	if err := b.exports.RecordExport(context.WithoutCancel(ctx), a); err != nil {
		b.log.Error("export audit", "chat", in.chat, "user", in.user, "err", err)
	}
	b.log.Info("export", "chat", in.chat, "user", in.user, "scope", scope, "tasks", counts.Tasks, "audit", counts.Audit, "outcome", a.Outcome)
}

// document uploads a file to topic at with caption, written by write
// into the upload as it goes up: no file is held in memory whole. A file
// past limit bytes is cut off and not sent (the error wraps errUploadTooBig);
// a failed write is not retried. It returns how many bytes were written.
func (s *sender) document(ctx context.Context, at nod.Topic, name string, caption formatting.Message, limit int64, write func(io.Writer) error) (int64, error) {
	if err := s.limit.wait(ctx, at.ChatID); err != nil {
		return 0, err
	}
	var size int64
	err := s.retry(ctx, "sendDocument", func() error {
		var err error
		size, err = s.upload(ctx, at, name, caption.HTML, limit, write)
		return err
	})
	if err != nil {
		return size, fmt.Errorf("send %s to chat %d: %w", name, at.ChatID, err)
	}
	return size, nil
}

// upload makes one sendDocument call, the file written by write through
// a pipe into the library's form.
func (s *sender) upload(ctx context.Context, at nod.Topic, name, caption string, limit int64, write func(io.Writer) error) (int64, error) {
	pr, pw := io.Pipe()
	file := &capped{w: pw, limit: limit}
	wrote := make(chan error, 1)
	go func() {
		err := write(file)
		pw.CloseWithError(err) // nil: the file ends there
		wrote <- err
	}()
	_, err := s.tg.SendDocument(ctx, &tgbot.SendDocumentParams{ChatID: at.ChatID, MessageThreadID: int(at.Thread),
		Document: &models.InputFileUpload{Filename: name, Data: pr}, Caption: caption, ParseMode: models.ParseModeHTML})
	pr.CloseWithError(errUploadEnded) // a writer the upload left behind stops
	werr := <-wrote
	switch {
	case file.over:
		return file.n, fmt.Errorf("%s: %w", name, errUploadTooBig)
	case werr != nil && !errors.Is(werr, errUploadEnded) && !errors.Is(werr, io.ErrClosedPipe):
		// The data could not be read: no retry helps.
		return file.n, fmt.Errorf("write %s: %w", name, werr)
	}
	return file.n, err
}

// capped passes writes on up to a limit; the write past it fails with
// errUploadTooBig and marks it over.
type capped struct {
	w     io.Writer
	n     int64
	limit int64
	over  bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.limit {
		c.over = true
		return 0, errUploadTooBig
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
