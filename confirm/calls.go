package confirm

import (
	"context"
	"errors"
	"time"

	"github.com/nodbot/nod"
)

// callTimeout bounds one external call a confirmation sends.
const callTimeout = 60 * time.Second

// RunCalls sends the external calls a confirmation claimed (d.Calls), in
// order, each once, and records each outcome in place
// (docs/design.md §16). The claim committed before: a crash from here on
// leaves the call claimed, and its owed report then says its outcome is
// unknown; it is never sent again. Calls already run are passed over.
func (c *Service) RunCalls(ctx context.Context, d *nod.Decided) {
	for i := range d.Calls {
		call := &d.Calls[i]
		if call.State != nod.CallClaimed || call.Err != "" {
			continue
		}
		if c.external == nil || c.calls == nil {
			call.Err = "no external services are configured"
			continue
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
		res, err := c.external.Call(cctx, call.Tool, call.Args)
		cancel()
		call.Result = res
		if err != nil {
			call.Err, call.NotSent = nod.Detail(err), errors.Is(err, nod.ErrNotSent)
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
		err = c.calls.Finish(fctx, call, nod.AuditEntry{UserConfirmed: true, Reason: "confirmed by the user's tap", Duration: time.Since(start)})
		cancel()
		if err != nil {
			c.log.Error("record external call", "chat", call.ChatID, "tool", call.Tool, "err", err)
		}
		c.decisions.WithLabelValues("called").Inc()
	}
}
