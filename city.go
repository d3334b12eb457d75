package nod

import "strings"

// City is a place a person named in words (/tz München, "I'm in
// Lisbon"), found offline in GeoNames' cities; Zone is the IANA zone at
// its coordinates, found as a shared location's is.
type City struct {
	ID                 int    // GeoNames id: stable, so a button can name it
	Name, NameDE       string // in English (or as the place calls itself), in German
	Region, RegionDE   string // its state or province, "" if unknown
	Country, CountryDE string // its country's name
	Lat, Lng           float64
	Population         int
	Zone               string
}

// CityMatch is what a name found: one city, or the most populous
// candidates of several (Total counts them all); none when nothing has
// that name.
type CityMatch struct {
	Cities []City
	Total  int
}

// Found reports whether the name is one city, no longer in doubt.
func (m CityMatch) Found() bool { return len(m.Cities) == 1 }

// NameIn is the city's name in the language lang ("de" or English).
func (c City) NameIn(lang string) string {
	if lang == "de" && c.NameDE != "" {
		return c.NameDE
	}
	return c.Name
}

// Label tells the city apart from others of the same name: "Frankfurt
// (Oder), Germany", or with its region when the name and country are not
// enough ("Portland, Oregon, United States of America").
func (c City) Label(lang string, region bool) string {
	parts := []string{c.NameIn(lang)}
	r, country := c.Region, c.Country
	if lang == "de" {
		if c.RegionDE != "" {
			r = c.RegionDE
		}
		if c.CountryDE != "" {
			country = c.CountryDE
		}
	}
	if region && r != "" && r != parts[0] {
		parts = append(parts, r)
	}
	if country != "" {
		parts = append(parts, country)
	}
	return strings.Join(parts, ", ")
}

// Labels tells cities apart for a person choosing one, in lang: by name
// and country, and by region too where those are not enough.
func Labels(cities []City, lang string) []string {
	out := make([]string, len(cities))
	for i, c := range cities {
		region := false
		for j, d := range cities {
			region = region || (i != j && c.NameIn(lang) == d.NameIn(lang) && c.Country == d.Country)
		}
		out[i] = c.Label(lang, region)
	}
	return out
}
