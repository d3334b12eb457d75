package app

import (
	"bytes"
	"io"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// The repository's root, from this package's folder.
const repoRoot = "../../../"

// composeFile is the part of the compose specification compose.yaml
// uses. Decoding knows no other keys, so that a misspelt one fails here,
// as `docker compose config` would fail on it.
type composeFile struct {
	Name     string                    `yaml:"name"`
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

type composeService struct {
	Image       string                                `yaml:"image"`
	PullPolicy  string                                `yaml:"pull_policy"`
	Restart     string                                `yaml:"restart"`
	DependsOn   map[string]struct{ Condition string } `yaml:"depends_on"`
	Environment map[string]string                     `yaml:"environment"`
	Volumes     []string                              `yaml:"volumes"`
	ExtraHosts  []string                              `yaml:"extra_hosts"`
	Ports       []string                              `yaml:"ports"`
	Healthcheck struct {
		Test        []string `yaml:"test"`
		Interval    string   `yaml:"interval"`
		Timeout     string   `yaml:"timeout"`
		StartPeriod string   `yaml:"start_period"`
		Retries     int      `yaml:"retries"`
	} `yaml:"healthcheck"`
}

// openAIEnv are the variables openai.NewClient reads itself besides the
// key and URL nod gives it (openai-go's DefaultClientOptions): set, they
// reach OpenAI as headers.
var openAIEnv = []string{"OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS"}

// interpolation is compose's ${VAR}, ${VAR:-default} and ${VAR:?message}.
var interpolation = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}`)

// interpolate replaces each ${…} in s with what vars holds for it.
func interpolate(s string, vars map[string]string) string {
	return interpolation.ReplaceAllStringFunc(s, func(m string) string { return vars[interpolation.FindStringSubmatch(m)[1]] })
}

// compose.yaml runs nod on the image scripts/image.sh makes, beside
// PostgreSQL 16, each restarted and health-checked, nod only once
// PostgreSQL is healthy, both keeping their data in volumes.
func TestCompose(t *testing.T) {
	raw, err := os.ReadFile(repoRoot + "compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	nod, pg := c.Services["nod"], c.Services["postgres"]
	if len(c.Services) != 2 || nod.Image == "" || pg.Image == "" {
		t.Fatalf("compose.yaml's services: %v; want nod and postgres", slices.Sorted(maps.Keys(c.Services)))
	}

	script, err := os.ReadFile(repoRoot + "scripts/image.sh")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`\btag=(\S+)`).FindSubmatch(script); m == nil || nod.Image != string(m[1]) || nod.PullPolicy != "never" {
		t.Errorf("nod's image is %q (pull_policy %q); want the one scripts/image.sh names, never pulled", nod.Image, nod.PullPolicy)
	}
	if pg.Image != "postgres:16" {
		t.Errorf("postgres's image is %q, want postgres:16", pg.Image)
	}
	for name, s := range c.Services {
		if s.Restart != "unless-stopped" {
			t.Errorf("%s restarts %q, want unless-stopped", name, s.Restart)
		}
		h := s.Healthcheck
		if len(h.Test) < 2 || h.Test[0] != "CMD" || h.Retries < 1 {
			t.Errorf("%s's healthcheck runs %q with %d retries; want an exec form [CMD, …] and retries", name, h.Test, h.Retries)
		}
		for _, d := range []string{h.Interval, h.Timeout, h.StartPeriod} {
			if _, err := time.ParseDuration(d); err != nil {
				t.Errorf("%s's healthcheck: %v", name, err)
			}
		}
	}
	if !slices.Equal(nod.Healthcheck.Test, []string{"CMD", "/nod", "healthcheck"}) {
		t.Errorf("nod's healthcheck runs %q, want /nod healthcheck: the image has no shell", nod.Healthcheck.Test)
	}
	if !slices.Contains(pg.Healthcheck.Test, "pg_isready") {
		t.Errorf("postgres's healthcheck runs %q, want pg_isready", pg.Healthcheck.Test)
	}
	if d, ok := nod.DependsOn["postgres"]; !ok || d.Condition != "service_healthy" || len(pg.DependsOn) != 0 {
		t.Errorf("nod depends on %v; want postgres, once service_healthy", nod.DependsOn)
	}
	mounts := func(s composeService, path string) {
		t.Helper()
		for _, v := range s.Volumes {
			name, target, _ := strings.Cut(v, ":")
			if _, declared := c.Volumes[name]; target == path && declared {
				return
			}
		}
		t.Errorf("no named volume at %s among %q, or it is not declared under volumes", path, s.Volumes)
	}
	mounts(nod, "/data")
	mounts(pg, "/var/lib/postgresql/data")

	// Every variable comes from .env: required ones with ${VAR:?why},
	// the rest with ${VAR:-}, so that compose never warns of an unset
	// one; .env.example lists each, and only those.
	example, err := os.ReadFile(repoRoot + ".env.example")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(example), "\n") {
		if k, _, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			listed[k] = true
		}
	}
	used, required := map[string]bool{}, map[string]bool{}
	for _, m := range interpolation.FindAllStringSubmatch(string(raw), -1) {
		name, op, arg := m[1], m[2], m[3]
		used[name] = true
		switch {
		case op == ":?" && strings.TrimSpace(arg) != "":
			required[name] = true
		case op == ":-":
		default:
			t.Errorf("compose.yaml takes %s; want ${%s:?why} if nod needs it, else ${%s:-…}", m[0], name, name)
		}
		if !listed[name] {
			t.Errorf("compose.yaml takes %s, which .env.example does not list", name)
		}
	}
	for name := range listed {
		if !used[name] {
			t.Errorf(".env.example lists %s, which compose.yaml does not take", name)
		}
	}
	for _, name := range []string{"TELEGRAM_BOT_TOKEN", "POSTGRES_PASSWORD"} {
		if !required[name] {
			t.Errorf("compose.yaml does not require %s with ${%s:?…}", name, name)
		}
	}

	// nod's environment holds only variables nod reads, those it cannot
	// start without among them, and nod takes every value it gets.
	reads := slices.Clone(openAIEnv)
	for _, s := range settings {
		reads = append(reads, s.env)
	}
	for k := range nod.Environment {
		if !slices.Contains(reads, k) {
			t.Errorf("compose.yaml sets %s for nod, which nod does not read", k)
		}
	}
	if !strings.Contains(nod.Environment["TELEGRAM_BOT_TOKEN"], "${TELEGRAM_BOT_TOKEN:?") {
		t.Errorf("nod's TELEGRAM_BOT_TOKEN is %q; want it required from .env", nod.Environment["TELEGRAM_BOT_TOKEN"])
	}
	sample := map[string]string{"TELEGRAM_BOT_TOKEN": "123456:sample-token", "POSTGRES_PASSWORD": "0123456789abcdef"}
	env := map[string]string{}
	for k, v := range nod.Environment {
		env[k] = interpolate(v, sample)
	}
	cfg, _, err := loadConfig("nod serve", nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Errorf("nod refuses compose.yaml's environment: %v", err)
	}
	// NOD_DB reaches the postgres service as its user, in its database.
	u, err := url.Parse(cfg.DB)
	if err != nil || u.Scheme != "postgres" || u.Hostname() != "postgres" || u.User.Username() != pg.Environment["POSTGRES_USER"] ||
		strings.TrimPrefix(u.Path, "/") != pg.Environment["POSTGRES_DB"] {
		t.Errorf("NOD_DB is %q (%v); want postgres://%s:…@postgres/%s", cfg.DB, err, pg.Environment["POSTGRES_USER"], pg.Environment["POSTGRES_DB"])
	} else if p, _ := u.User.Password(); p != sample["POSTGRES_PASSWORD"] || interpolate(pg.Environment["POSTGRES_PASSWORD"], sample) != p {
		t.Errorf("NOD_DB's password is not POSTGRES_PASSWORD, the one postgres is given")
	}
}
