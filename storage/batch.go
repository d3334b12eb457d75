package storage

import (
	"cmp"
	"context"
	"fmt"
)

// SQLite writes a transaction's pages to its WAL at COMMIT, so a commit
// costs about as much as the statements before it, and pages that several
// transactions touch (a table's last page, an index's) are written once
// per commit. Transactions that queue for the writer while another holds
// it therefore run together when it is free: each inside a savepoint of
// one SQLite transaction, in the order they queued, with one COMMIT for
// all. Each keeps its own outcome: an error rolls back its savepoint
// only, and its caller alone gets it. Nobody waits for a batch to fill;
// a transaction that finds the writer free runs at once, alone.
//
// Whatever ends the batch's transaction itself (a failed COMMIT, an
// interrupt that rolled everything back) must not cost the others their
// writes: those are run again, each alone, as they would have run
// without the batch, so every caller gets the outcome its own transaction
// gets. Running a function again from the start is what inTx already
// asks of every transaction function.

// maxBatch bounds a batch, so that one commit stays small and the writer
// goes round: whatever is left queued runs in the next.
const maxBatch = 32

// call is one transaction queued for the writer.
type call struct {
	ctx context.Context
	fn  func(c conn) error
	// bare is a single statement, which runs without BEGIN and COMMIT
	// when alone (SQLite's autocommit).
	bare bool
	memo *txMemo // what fn's run in a batch knows of its writes

	err      error
	panicked any           // what fn panicked with, to panic again in its caller
	taken    bool          // a holder took it (under writer.mu)
	done     chan struct{} // closed once err is final
}

// tx runs fn in one SQLite transaction on the writer: BEGIN IMMEDIATE, so
// that no other process's writer can slip in between a read and the write
// that depends on it.
func (w *writer) tx(ctx context.Context, db *core, fn func(tx conn) error) error {
	return w.do(ctx, db, &call{ctx: ctx, fn: fn})
}

// do queues c and waits for its outcome. Whichever caller gets the
// writer runs what is queued then, its own call among it unless an
// earlier holder took that already; a caller whose call is still queued
// once it gave the writer back (a batch holds maxBatch at most) goes on.
func (w *writer) do(ctx context.Context, db *core, c *call) error {
	c.done = make(chan struct{})
	w.mu.Lock()
	w.waiting = append(w.waiting, c)
	w.mu.Unlock()
	for waiting := true; waiting; {
		select {
		case <-c.done:
			waiting = false
		case w.sem <- struct{}{}:
			w.serve(db)
		case <-ctx.Done():
			if w.withdraw(c) {
				return fmt.Errorf("begin: %w", ctx.Err())
			}
			<-c.done // a holder runs it
			waiting = false
		}
	}
	if c.panicked != nil {
		panic(c.panicked)
	}
	return c.err
}

// withdraw takes c out of the queue, unless a holder took it already.
func (w *writer) withdraw(c *call) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if c.taken {
		return false
	}
	for i, q := range w.waiting {
		if q == c {
			w.waiting = append(w.waiting[:i], w.waiting[i+1:]...)
			break
		}
	}
	return true
}

// serve runs what is queued, then gives the writer back; w is held.
func (w *writer) serve(db *core) {
	w.mu.Lock()
	n := min(len(w.waiting), maxBatch)
	batch := make([]*call, n)
	copy(batch, w.waiting)
	w.waiting = append(w.waiting[:0], w.waiting[n:]...)
	for _, c := range batch {
		c.taken = true
	}
	w.mu.Unlock()
	defer func() {
		w.release()
		for _, c := range batch {
			close(c.done)
		}
	}()
	live := batch[:0:0]
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.err = fmt.Errorf("begin: %w", err)
			continue
		}
		live = append(live, c)
	}
	if len(live) == 0 {
		return
	}
	if len(live) == 1 {
		w.alone(db, live[0])
		return
	}
	w.batch(db, live)
}

// alone runs c in a transaction of its own (or, bare, in none).
func (w *writer) alone(db *core, c *call) {
	ctx := c.ctx
	if err := w.open(ctx); err != nil {
		c.err = err
		return
	}
	if c.bare {
		if c.err = w.run(db, c, nil); c.err == nil {
			w.commits.Add(1)
		}
		return
	}
	if err := w.exec(ctx, "BEGIN IMMEDIATE"); err != nil {
		w.reset()
		c.err = fmt.Errorf("begin: %w", err)
		return
	}
	// The end must run even when ctx is done, or the connection would
	// stay in the transaction.
	ctx = context.WithoutCancel(ctx)
	memo := newTxMemo()
	defer func() { db.heads.end(memo, cmp.Or(c.err, errAbandoned)) }() // a failure's; committed ends them first
	if c.err = w.run(db, c, memo); c.err != nil {
		if err := w.exec(ctx, "ROLLBACK"); err != nil {
			w.reset()
		}
		return
	}
	if err := w.exec(ctx, "COMMIT"); err != nil {
		w.exec(ctx, "ROLLBACK")
		w.reset()
		c.err = fmt.Errorf("commit: %w", err)
		return
	}
	w.commits.Add(1)
	db.committed(memo)
}

// batch runs calls in one transaction, each in a savepoint; w is held
// and calls has two or more.
func (w *writer) batch(db *core, calls []*call) {
	ctx := context.Background() // the batch's own statements are everyone's
	exec := func(query string) error { return w.exec(ctx, query) }
	// again runs calls alone, once the batch's transaction is gone.
	again := func(calls []*call) {
		if err := exec("ROLLBACK"); err != nil {
			w.reset() // already rolled back, or the connection is unsure
		}
		for _, c := range calls {
			db.heads.end(c.memo, errAbandoned)
			c.err, c.panicked = nil, nil
			w.alone(db, c)
		}
	}
	if err := w.open(ctx); err != nil {
		for _, c := range calls {
			c.err = err
		}
		return
	}
	if err := exec("BEGIN IMMEDIATE"); err != nil {
		again(calls)
		return
	}
	var kept []*call
	for i, c := range calls {
		if err := exec("SAVEPOINT batch"); err != nil {
			again(append(kept, calls[i:]...))
			return
		}
		c.memo = newTxMemo()
		if c.bare {
			c.memo = nil
		}
		if c.err = w.run(db, c, c.memo); c.err == nil {
			if err := exec("RELEASE batch"); err != nil {
				again(append(kept, calls[i:]...))
				return
			}
			kept = append(kept, c)
			continue
		}
		// c keeps its error; the rest keep their writes, unless c's
		// failure took the whole transaction with it.
		db.heads.end(c.memo, c.err)
		if err := exec("ROLLBACK TO batch"); err != nil {
			again(append(kept, calls[i+1:]...))
			return
		}
		if err := exec("RELEASE batch"); err != nil {
			again(append(kept, calls[i+1:]...))
			return
		}
	}
	if err := exec("COMMIT"); err != nil {
		again(kept)
		return
	}
	w.commits.Add(1)
	for _, c := range kept {
		db.committed(c.memo)
	}
}

// run calls c's function on the writer, catching a panic for its caller.
func (w *writer) run(db *core, c *call, memo *txMemo) (err error) {
	defer func() {
		if p := recover(); p != nil {
			c.panicked = p
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return c.fn(conn{db: db, w: w, memo: memo})
}

// open takes the writer's connection from its pool on first use (and
// after a reset); w is held.
func (w *writer) open(ctx context.Context) error {
	if w.conn != nil {
		return nil
	}
	c, err := w.pool.Conn(context.WithoutCancel(ctx))
	if err != nil {
		return fmt.Errorf("writer connection: %w", err)
	}
	w.conn = c
	return nil
}

// exec runs one of the transaction's own statements, prepared once.
func (w *writer) exec(ctx context.Context, query string) error {
	st, err := w.stmt(ctx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx)
	return err
}
