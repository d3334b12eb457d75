package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Whatever Undo and Redo taps, and /undo, the person makes, in any order
// and on any message, a receipt of several changes reads as they stand:
// a change's number is struck exactly when its task is not on the list,
// and it offers Undo only for a change on the list whose Undo is its own.
// Each seed plays ten random steps, stale buttons included (a refused
// tap must leave the receipt right too).
func TestReceiptReadsAsItsChangesStand(t *testing.T) {
	for seed := range 6 {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			receipt := h.bulkTurn(3)
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			var did []string
			for range 10 {
				type step struct {
					what string
					do   func()
				}
				var steps []step
				for _, m := range h.tg.BotMessages(chat) {
					for _, b := range buttonTexts(m) {
						if strings.HasPrefix(b, "↩️ Undo") || strings.HasPrefix(b, "↪️ Redo") {
							steps = append(steps, step{fmt.Sprintf("%s on %d", b, m.ID), func() { h.tap(chat, user, m.ID, b) }})
						}
					}
				}
				steps = append(steps, step{"/undo", func() {
					n := len(h.tg.BotMessages(chat))
					h.tg.SendText(chat, user, "/undo")
					h.tg.WaitBotMessages(chat, n+1)
				}})
				s := steps[rng.IntN(len(steps))]
				did = append(did, s.what)
				s.do()
				live := map[string]bool{}
				for _, task := range h.liveTasks() {
					live[task.Title] = true
				}
				// A tap's edits are made before its press settles (h.tap), and
				// /undo's before its answer: the receipt reads as it will.
				last, _ := h.tg.Message(chat, receipt.ID)
				for n := 1; n <= 3; n++ {
					struck := strings.Contains(last.Text, fmt.Sprintf("↩️ <s>%d. ", n))
					if on := live[fmt.Sprintf("Task number %d", n)]; struck == on || struck && hasButton(last, fmt.Sprintf("↩️ Undo %d", n)) {
						t.Fatalf("after %q change %d reads struck %v with its task on the list %v:\n%s\n%v", did, n, struck, on, last.Text, buttonTexts(last))
					}
				}
			}
		})
	}
}
