package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/storage"
)

// chromium finds a Chromium to drive: $CHROME, else Debian's. Without one
// the browser test is skipped, except under CI, which installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROME"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium: .ci/run installs Debian's chromium package")
	}
	t.Skip("no Chromium on this machine (apt-get install chromium); CI runs this test")
	return ""
}

// button finds a chat button whose text starts with prefix.
func button(prefix string) chromedp.Search {
	return chromedp.Search(`//div[contains(@class,"keyboard")]//button[starts-with(normalize-space(.), "` + prefix + `")]`)
}

// browser starts a phone-sized headless Chromium for the test, with
// extra flags; the context given drives it, for 90 s at most.
func browser(t *testing.T, flags ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	chrome := chromium(t)
	alloc, cancel := chromedp.NewExecAllocator(t.Context(), slices.Concat(chromedp.DefaultExecAllocatorOptions[:], []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(412, 915),
		chromedp.UserDataDir(t.TempDir()),
		// This machine has no network: Chromium's own background fetches
		// would fail, noisily, at every start.
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
	}, flags)...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A person on a phone-sized page: sends a message, sees the change set,
// presses ✓ 1, sees the message edited in place, presses Undo 1.
func TestPlaygroundInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	tp := newPlayground(t, nil, options{})

	launch := func() nod.Task {
		db := storage.New(storage.Options{DSN: tp.db}, time.Now, slog.New(slog.DiscardHandler))
		if err := db.Open(t.Context()); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ts, err := db.Tasks().ListTasks(t.Context(), player, nod.TaskFilter{Query: "Launch plan"})
		if err != nil || len(ts) != 1 {
			t.Fatalf("Launch plan: %v, %v", ts, err)
		}
		return ts[0]
	}
	const set = chromedp.Search(`//div[contains(@class,"row") and .//b[normalize-space(.)="Proposed changes" or normalize-space(.)="Changes you decided"]]`)
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v\nthe chat:\n%s", what, err, transcript(tp.view()))
		}
	}
	step("send a message", chromedp.Do(ctx,
		chromedp.EmulateViewport(412, 915, chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate("http://"+tp.addr+"/"),
		chromedp.WaitVisible(chromedp.ID("text")),
		// A tour suggestion sends itself: an explicit change and its receipt.
		chromedp.Click(chromedp.Search(`//button[@data-try="raise the login bug to P1"]`)),
		chromedp.WaitVisible(chromedp.Search(`//div[@class="text" and contains(., "because you said")]`)),
		chromedp.WaitVisible(button("↩️ Undo")),
		chromedp.SendKeys(chromedp.ID("text"), "help me plan the launch"),
		chromedp.Click(chromedp.ID("sendButton")),
		chromedp.WaitVisible(button("✓ 1")),
	))
	before, err := chromedp.Run(ctx, chromedp.AttributeValue(set, "data-id"))
	step("the change set's id", err)
	step("press ✓ 1", chromedp.Do(ctx,
		chromedp.Click(button("✓ 1")),
		chromedp.WaitVisible(button("↩️ Undo 1")),
		chromedp.WaitNotPresent(button("✓ 1")),
	))
	after, err := chromedp.Run(ctx, chromedp.AttributeValue(set, "data-id"))
	step("the edited set's id", err)
	toast, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("toast")))
	step("the press's notice", err)
	setID, editedID := before.Value, after.Value
	if setID == "" || editedID != setID {
		t.Errorf("the change set was message %q, the edited one %q: not edited in place", setID, editedID)
	}
	if !strings.Contains(toast, "Applied item 1") {
		t.Errorf("the press's notice = %q", toast)
	}
	if lp := launch(); len(lp.Checklist) != 1 || lp.Checklist[0].Title != "Draft announcement" {
		t.Errorf("after ✓ 1 the Launch plan is %+v", lp)
	}
	if shot := os.Getenv("NODPLAY_SCREENSHOT"); shot != "" {
		// Taller than a phone, to show the whole conversation.
		err := chromedp.Do(ctx, chromedp.EmulateViewport(412, 1350, chromedp.EmulateMobile), chromedp.Sleep(300*time.Millisecond))
		step("a taller viewport", err)
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			err = os.WriteFile(shot, png, 0o644)
		}
		if err != nil {
			t.Errorf("screenshot: %v", err)
		}
	}

	const report = chromedp.Search(`//div[contains(@class,"bot")]//div[@class="text" and contains(., "Undone")]`)
	step("press Undo 1", chromedp.Do(ctx, chromedp.Click(button("↩️ Undo 1")), chromedp.WaitVisible(report)))
	undone, err := chromedp.Run(ctx, chromedp.Text(report))
	step("the undo report", err)
	if !strings.Contains(undone, "Draft announcement") {
		t.Errorf("the undo report = %q", undone)
	}
	if lp := launch(); len(lp.Checklist) != 0 {
		t.Errorf("after Undo 1 the Launch plan is %+v", lp)
	}

	// The clock control: a reminder half an hour ahead fires after ⏩ +1 h.
	db := storage.New(storage.Options{DSN: tp.db}, time.Now, slog.New(slog.DiscardHandler))
	if err := db.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	at := nod.Stamp(time.Now().Add(30 * time.Minute))
	_, err = db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: player}, UserID: player, TaskID: launch().ID, Tool: "set_task_reminder", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(cur *nod.Task) (nod.Task, error) { cur.RemindAt = &at; return *cur, nil }})
	db.Close()
	step("set a reminder", err)
	step("press ⏩ +1 h", chromedp.Do(ctx,
		chromedp.Click(chromedp.Search(`//button[@data-clock="hour"]`)),
		chromedp.WaitVisible(button("⏰ Tomorrow")),
	))

	// Forward someone's message, then edit one of the person's own.
	const forwarded = `//div[contains(@class,"me")]//div[contains(@class,"forwarded") and normalize-space(.)="Forwarded from Maria"]`
	step("forward a message", chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("fwdFrom"), "Maria"),
		chromedp.SendKeys(chromedp.ID("text"), "please bump the login bug"),
		chromedp.Click(chromedp.ID("sendButton")),
		chromedp.WaitVisible(chromedp.Search(forwarded)),
	))
	const mine = `//div[contains(@class,"me")]//div[@class="text" and normalize-space(.)="help me plan the launch"]/..//button[contains(@class,"edit")]`
	const edited = `//div[contains(@class,"me")]//div[@class="text" and normalize-space(.)="help me plan the launch and the docs"]`
	// The page draws the chat again on every change (the forward's answer,
	// "typing…" going): a button found before a redraw is gone after it,
	// so the press is tried again on the new one.
	for range 3 {
		if err = chromedp.Do(ctx, chromedp.Click(chromedp.Search(mine))); err == nil || !strings.Contains(err.Error(), "Could not find node") {
			break
		}
	}
	step("press a message's edit", err)
	step("edit a message", chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("text"), " and the docs"),
		chromedp.Click(chromedp.ID("sendButton")),
		chromedp.WaitVisible(chromedp.Search(edited)),
	))
	v := tp.view()
	var fwd, edit bool
	for _, m := range v.Msgs {
		fwd = fwd || (!m.Bot && m.Forwarded == "Maria")
		edit = edit || (!m.Bot && m.Edited && m.HTML == "help me plan the launch and the docs")
	}
	if !fwd || !edit {
		t.Errorf("forwarded %v, edited %v:\n%s", fwd, edit, transcript(v))
	}
}
