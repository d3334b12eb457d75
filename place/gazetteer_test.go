package place_test

import (
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/place"
)

// The process's finder: the gazetteer and zone data are read once for
// all tests, as in a running nod.
var finder place.Finder

func TestFindCity(t *testing.T) {
	for _, c := range []struct {
		query, name, nameDE, country, zone string
	}{
		{"München", "Munich", "München", "Germany", "Europe/Berlin"},
		{"Munich", "Munich", "München", "Germany", "Europe/Berlin"},
		{"Muenchen", "Munich", "München", "Germany", "Europe/Berlin"},
		{"munchen", "Munich", "München", "Germany", "Europe/Berlin"},
		{"MÜNCHEN", "Munich", "München", "Germany", "Europe/Berlin"},
		{"  münchen  ", "Munich", "München", "Germany", "Europe/Berlin"},
		{"Köln", "Cologne", "Köln", "Germany", "Europe/Berlin"},
		{"Cologne", "Cologne", "Köln", "Germany", "Europe/Berlin"},
		{"Koeln", "Cologne", "Köln", "Germany", "Europe/Berlin"},
		{"Wien", "Vienna", "Wien", "Austria", "Europe/Vienna"},
		{"Vienna", "Vienna", "Wien", "Austria", "Europe/Vienna"},
		{"Lissabon", "Lisbon", "Lissabon", "Portugal", "Europe/Lisbon"},
		{"Lisbon", "Lisbon", "Lissabon", "Portugal", "Europe/Lisbon"},
		{"New York", "New York", "New York City", "United States of America", "America/New_York"},
		{"new york city", "New York", "New York City", "United States of America", "America/New_York"},
		{"São Paulo", "São Paulo", "São Paulo", "Brazil", "America/Sao_Paulo"},
		{"Sao Paulo", "São Paulo", "São Paulo", "Brazil", "America/Sao_Paulo"},
		{"Frankfurt (Oder)", "Frankfurt (Oder)", "Frankfurt (Oder)", "Germany", "Europe/Berlin"},
		{"Frankfurt Oder", "Frankfurt (Oder)", "Frankfurt (Oder)", "Germany", "Europe/Berlin"},
		{"Portland OR", "Portland", "Portland", "United States of America", "America/Los_Angeles"},
		{"Portland, Oregon", "Portland", "Portland", "United States of America", "America/Los_Angeles"},
		{"Portland, ME", "Portland", "Portland", "United States of America", "America/New_York"},
		{"Portland, Maine", "Portland", "Portland", "United States of America", "America/New_York"}, // "State of Maine"
		{"Frankfurt, Hessen", "Frankfurt am Main", "Frankfurt am Main", "Germany", "Europe/Berlin"},
		{"Paris", "Paris", "Paris", "France", "Europe/Paris"},
		{"Paris, France", "Paris", "Paris", "France", "Europe/Paris"},
		{"Paris, Texas", "Paris", "Paris", "United States of America", "America/Chicago"},
		{"Paris Frankreich", "Paris", "Paris", "France", "Europe/Paris"},
		{"Tokyo", "Tokyo", "Tokio", "Japan", "Asia/Tokyo"},
	} {
		m, err := finder.FindCity(c.query)
		if err != nil {
			t.Fatalf("FindCity(%q): %v", c.query, err)
		}
		if !m.Found() {
			t.Errorf("FindCity(%q) = %d cities of %d; want one", c.query, len(m.Cities), m.Total)
			continue
		}
		got := m.Cities[0]
		if got.Name != c.name || got.NameDE != c.nameDE || got.Country != c.country || got.Zone != c.zone {
			t.Errorf("FindCity(%q) = %q/%q, %q, %q; want %q/%q, %q, %q", c.query, got.Name, got.NameDE, got.Country, got.Zone, c.name, c.nameDE, c.country, c.zone)
		}
	}
}

// TestFindCityAmbiguous: a name that no place clearly dominates is asked
// about, the most populous first.
func TestFindCityAmbiguous(t *testing.T) {
	for _, c := range []struct {
		query string
		first []string // labels of the first candidates, in order
	}{
		{"Frankfurt", []string{"Frankfurt am Main, Germany", "Frankfurt (Oder), Germany"}},
		{"frankfurt, germany", []string{"Frankfurt am Main, Germany", "Frankfurt (Oder), Germany"}},
		{"Portland", []string{"Portland, Oregon, United States of America", "Portland, State of Maine, United States of America"}},
		// Frankfurt am Main's "Frankfort" is left to the places called so.
		{"Frankfort", []string{"Frankfort, Kentucky, United States of America"}},
	} {
		m, err := finder.FindCity(c.query)
		if err != nil {
			t.Fatal(err)
		}
		if m.Found() || len(m.Cities) < max(2, len(c.first)) || len(m.Cities) > place.MaxCandidates || m.Total < len(m.Cities) {
			t.Fatalf("FindCity(%q) = %d cities of %d; want at least %d, at most %d", c.query, len(m.Cities), m.Total, len(c.first), place.MaxCandidates)
		}
		labels := nod.Labels(m.Cities, "en")
		for i, want := range c.first {
			if got := labels[i]; got != want {
				t.Errorf("FindCity(%q) candidate %d = %q; want %q", c.query, i, got, want)
			}
		}
		for i := 1; i < len(m.Cities); i++ {
			if m.Cities[i].Population > m.Cities[i-1].Population {
				t.Errorf("FindCity(%q): candidate %d outnumbers the one before", c.query, i)
			}
		}
	}
	m, _ := finder.FindCity("Frankfurt")
	if got := m.Cities[1].Label("de", false); got != "Frankfurt (Oder), Deutschland" {
		t.Errorf("German label = %q", got)
	}
	m, _ = finder.FindCity("Springfield")
	if len(m.Cities) != place.MaxCandidates || m.Total <= place.MaxCandidates {
		t.Errorf("Springfield: %d cities of %d; want %d of more", len(m.Cities), m.Total, place.MaxCandidates)
	}
}

func TestFindCityNone(t *testing.T) {
	for _, q := range []string{
		"", "   ", "Blorptown", "Europe/Berlin", "<b>Paris</b>", "Paris, Narnia",
		strings.Repeat("Paris ", 100), "Paris, " + strings.Repeat("x", 10000),
		"🙂", "---",
	} {
		m, err := finder.FindCity(q)
		if err != nil {
			t.Fatalf("FindCity(%.20q): %v", q, err)
		}
		if len(m.Cities) != 0 || m.Total != 0 {
			t.Errorf("FindCity(%.20q) = %d cities (%s); want none", q, len(m.Cities), m.Cities[0].Label("en", true))
		}
	}
}

func TestCityByID(t *testing.T) {
	c, found, err := finder.CityByID(2925535)
	if err != nil || !found || c.Name != "Frankfurt (Oder)" || c.Zone != "Europe/Berlin" {
		t.Errorf("CityByID(2925535) = %+v, %v, %v", c, found, err)
	}
	if _, found, err := finder.CityByID(1); found || err != nil {
		t.Errorf("CityByID(1) = %v, %v; want not found", found, err)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"São Paulo": "sao paulo", "Frankfurt (Oder)": "frankfurt oder", "Straße": "strasse",
		"  ST. LOUIS ": "st louis", "Łódź": "lodz", "Ærøskøbing": "aeroskobing",
	} {
		if got := place.Fold(in); got != want {
			t.Errorf("Fold(%q) = %q; want %q", in, got, want)
		}
	}
}

// BenchmarkFindCity measures a lookup once the index is built (the
// first one builds it: see BenchmarkGazetteerLoad).
func BenchmarkFindCity(b *testing.B) {
	if _, err := finder.FindCity("Berlin"); err != nil {
		b.Fatal(err)
	}
	queries := []string{"München", "Portland OR", "Frankfurt", "Blorptown", "Paris, France"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := finder.FindCity(queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGazetteerLoad measures the first lookup of a process: reading
// the embedded data and building the index (the zone data not counted).
func BenchmarkGazetteerLoad(b *testing.B) {
	for b.Loop() {
		var f place.Finder
		if _, _, err := f.CityByID(0); err != nil {
			b.Fatal(err)
		}
	}
}
