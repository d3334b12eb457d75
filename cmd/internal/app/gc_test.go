package app

import (
	"runtime/debug"
	"testing"
)

// nod serves with its own GC goal unless GOGC chose one.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	TuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Errorf("GC percent %d without GOGC, want %d", got, GCPercent)
	}
	TuneGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent %d with GOGC set, want the runtime's own (100 here)", got)
	}
}
