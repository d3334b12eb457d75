package app

import "runtime/debug"

// GCPercent is the garbage collector's goal nod serves with: the heap may
// grow to 1 + GCPercent/100 times what is live before a collection. Go's
// default, 100, suits a large heap; nod's live heap is a few MiB (nothing
// per chat stays between turns), so at 100 it collects every few MiB of
// allocation, a fifth of its own CPU under load. At 400 the collections
// cost a quarter as much, for a peak heap a few times the live one: tens
// of MiB (docs/performance.md).
const GCPercent = 400

// TuneGC sets GCPercent, unless the environment's GOGC (which the runtime
// has read) chose otherwise.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
