// Package place maps a point on Earth to its IANA time zone, offline,
// with github.com/ringsaturn/tzf's lite data. The data is read on the
// first lookup, not at start: most chats never share a location, and
// the finder holds tens of MiB once loaded.
package place

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ringsaturn/tzf"
)

// Shared is the process's finder: the data is the same for every user of
// it, so it is read once however many nods a process runs.
var Shared = &Finder{}

// Finder looks zones up. The zero value is ready; it loads its data on
// first use, once, and is safe for concurrent use.
type Finder struct {
	once   sync.Once
	finder tzf.F
	err    error
	loaded atomic.Bool

	gzOnce sync.Once // the gazetteer, read on the first name looked up
	gz     *gazetteer
	gzErr  error
}

// Zone returns the IANA zone at latitude lat and longitude lng. sea is
// true for a point at sea, where the data has only a nautical zone
// (Etc/GMT±N) and no country's time applies.
func (f *Finder) Zone(lat, lng float64) (zone string, sea bool, err error) {
	if lat < -90 || lat > 90 || lng < -180 || lng > 180 {
		return "", false, fmt.Errorf("place: (%v, %v) is not a point on Earth", lat, lng)
	}
	f.once.Do(func() {
		f.finder, f.err = tzf.NewDefaultFinder()
		f.loaded.Store(true)
	})
	if f.err != nil {
		return "", false, fmt.Errorf("place: load time zone data: %w", f.err)
	}
	zone = f.finder.GetTimezoneName(lng, lat) // longitude first
	if zone == "" {
		return "", true, nil
	}
	return zone, strings.HasPrefix(zone, "Etc/"), nil
}

// Loaded reports whether the data has been read: a process that never
// saw a location never pays for it.
func (f *Finder) Loaded() bool { return f.loaded.Load() }
