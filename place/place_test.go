package place_test

import (
	"testing"

	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/place"
)

func TestZone(t *testing.T) {
	var f place.Finder
	if f.Loaded() {
		t.Fatal("loaded before the first lookup")
	}
	for _, c := range []struct {
		name     string
		lat, lng float64
		zone     string
		sea      bool
	}{
		{"Cologne", 50.94, 6.96, "Europe/Berlin", false},
		{"Tokyo", 35.68, 139.69, "Asia/Tokyo", false},
		{"San Francisco", 37.77, -122.42, "America/Los_Angeles", false},
		{"the Atlantic", 0, -30, "Etc/GMT+2", true},
	} {
		zone, sea, err := f.Zone(c.lat, c.lng)
		if err != nil || zone != c.zone || sea != c.sea {
			t.Errorf("Zone(%s) = %q, %v, %v; want %q, %v", c.name, zone, sea, err, c.zone, c.sea)
		}
	}
	if !f.Loaded() {
		t.Error("not loaded after lookups")
	}
	if _, _, err := f.Zone(91, 0); err == nil {
		t.Error("latitude 91 accepted")
	}
}
