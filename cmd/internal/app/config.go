package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/mcpclient"
)

// config is nod's configuration: flags override environment variables,
// which override defaults (docs/design.md §9.1).
type config struct {
	Token             string
	TelegramURL       string
	APIKey            string
	BaseURL           string
	Model             string
	ClassifierModel   string
	DB                string
	AllowedUsers      []nod.UserID
	HTTPAddr          string
	WebhookURL        string
	WebhookSecret     string
	StepTimeout       time.Duration
	ClassifierTimeout time.Duration
	MaxSteps          int
	ChangeSetTTL      time.Duration
	UndoWindow        time.Duration
	ConfirmWindow     time.Duration
	TrashRetention    time.Duration
	LogFormat         string
	SweepInterval     time.Duration
	UpdateTimeout     time.Duration
	AuditKey          string
	RateChat          float64
	RateChatBurst     float64
	RateGroup         float64
	RateGlobal        float64
	TimeZone          *time.Location
	TranscribeModel   string
	TranscribeURL     string
	VoiceMax          time.Duration
	MCPConfig         string           // NOD_MCP_CONFIG's path; Run reads the file for serve
	MCP               mcpclient.Config // the file read
	getenv            func(string) string
}

// setting is one configuration value: its flag, the kind of value it
// takes (for help), its variable and default.
type setting struct {
	flag, kind, env, def, help string
	secret                     bool
	set                        func(c *config, v string) error
}

func str(p func(*config) *string) func(*config, string) error {
	return func(c *config, v string) error { *p(c) = v; return nil }
}

func rate(p func(*config) *float64) func(*config, string) error {
	return func(c *config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			return fmt.Errorf("%q is not a positive number", v)
		}
		*p(c) = f
		return nil
	}
}

func dur(p func(*config) *time.Duration) func(*config, string) error {
	return func(c *config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q is not a positive duration such as 60s or 24h", v)
		}
		*p(c) = d
		return nil
	}
}

// minSecret is the shortest secret nod takes. Logs mask every secret
// wherever it appears; one of 1 to 3 characters would garble every line
// holding those letters, and keeps nothing secret anyway.
const minSecret = 4

// secret sets a secret that is empty or at least minSecret characters;
// hint says what to give instead. The value is never quoted: the error
// goes to a terminal or a log.
func secret(p func(*config) *string, hint string) func(*config, string) error {
	return func(c *config, v string) error {
		if n := utf8.RuneCountInString(v); n > 0 && n < minSecret {
			return fmt.Errorf("shorter than the %d characters a secret needs to be masked in logs: %s", minSecret, hint)
		}
		*p(c) = v
		return nil
	}
}

// A webhook secret is what Telegram takes (1 to 256 of A-Z a-z 0-9 _ -),
// at least 16 long: on a public URL it alone tells Telegram's posts from
// anyone's, and 16 random characters of those 64 are 96 bits, beyond
// guessing.
const minWebhookSecret, maxWebhookSecret = 16, 256

// webhookSecret sets the webhook secret if Telegram takes it and it is
// long enough.
func webhookSecret(c *config, v string) error {
	// The value is never quoted: the error goes to a terminal or a log.
	var why string
	switch {
	case v == "": // long polling
	case strings.IndexFunc(v, notSecretChar) >= 0:
		why = "has a character Telegram refuses"
	case len(v) < minWebhookSecret: // ASCII by now: a byte is a character
		why = "is too short"
	case len(v) > maxWebhookSecret:
		why = "is too long"
	}
	if why != "" {
		return fmt.Errorf("%s; want %d to %d of A-Z a-z 0-9 _ - (openssl rand -hex 16 makes one)", why, minWebhookSecret, maxWebhookSecret)
	}
	c.WebhookSecret = v
	return nil
}

func notSecretChar(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-')
}

var settings = []setting{
	{"token", "token", "TELEGRAM_BOT_TOKEN", "", "Telegram bot token", true, secret(func(c *config) *string { return &c.Token }, "give the whole token @BotFather sent")},
	{"telegram-url", "url", "TELEGRAM_API_URL", "https://api.telegram.org", "Telegram Bot API base URL", false, str(func(c *config) *string { return &c.TelegramURL })},
	{"openai-key", "key", "OPENAI_API_KEY", "", "key for the LLM endpoint; empty for local servers", true, secret(func(c *config) *string { return &c.APIKey }, "give the whole key, or none for a local server that needs no key")},
	{"openai-url", "url", "OPENAI_BASE_URL", "https://api.openai.com/v1", "OpenAI-compatible endpoint", false, str(func(c *config) *string { return &c.BaseURL })},
	{"model", "name", "NOD_MODEL", "gpt-4.1-mini", "agent model", false, str(func(c *config) *string { return &c.Model })},
	{"classifier-model", "name", "NOD_CLASSIFIER_MODEL", "", "classifier model; unset, the agent model", false, str(func(c *config) *string { return &c.ClassifierModel })},
	{"db", "path|url", "NOD_DB", "nod.db", "SQLite file path, or a postgres:// URL", false, str(func(c *config) *string { return &c.DB })},
	{"allowed-users", "ids", "NOD_ALLOWED_USERS", "", "comma-separated Telegram user ids allowed to use the bot", false, func(c *config, v string) error {
		c.AllowedUsers = nil
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			id, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a Telegram user id", f)
			}
			c.AllowedUsers = append(c.AllowedUsers, nod.UserID(id))
		}
		return nil
	}},
	{"http-addr", "host:port", "NOD_HTTP_ADDR", "127.0.0.1:9090", "health, metrics and webhook listener (127.0.0.1:0 picks a free port)", false, str(func(c *config) *string { return &c.HTTPAddr })},
	{"webhook-url", "url", "NOD_WEBHOOK_URL", "", "webhook URL (unset: long polling)", false, str(func(c *config) *string { return &c.WebhookURL })},
	{"webhook-secret", "secret", "NOD_WEBHOOK_SECRET", "", "secret Telegram sends with each webhook post: 16 to 256 of A-Z a-z 0-9 _ -", true, webhookSecret},
	{"step-timeout", "duration", "NOD_STEP_TIMEOUT", "60s", "deadline of one agent LLM step", false, dur(func(c *config) *time.Duration { return &c.StepTimeout })},
	{"classifier-timeout", "duration", "NOD_CLASSIFIER_TIMEOUT", "5s", "deadline of one classifier request; past it, the change asks", false, dur(func(c *config) *time.Duration { return &c.ClassifierTimeout })},
	{"max-steps", "n", "NOD_MAX_STEPS", "8", "agent steps per turn", false, func(c *config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a positive number", v)
		}
		c.MaxSteps = n
		return nil
	}},
	{"changeset-ttl", "duration", "NOD_CHANGESET_TTL", "168h", "pending change sets expire after", false, dur(func(c *config) *time.Duration { return &c.ChangeSetTTL })},
	{"undo-window", "duration", "NOD_UNDO_WINDOW", "24h", "Undo stays possible for", false, dur(func(c *config) *time.Duration { return &c.UndoWindow })},
	{"confirm-window", "duration", "NOD_CONFIRM_WINDOW", "10m", "a typed confirmation waits for", false, dur(func(c *config) *time.Duration { return &c.ConfirmWindow })},
	{"trash-retention", "duration", "NOD_TRASH_RETENTION", "720h", "trashed tasks are purged after", false, dur(func(c *config) *time.Duration { return &c.TrashRetention })},
	{"sweep-interval", "duration", "NOD_SWEEP_INTERVAL", "1m", "how often expired change sets, old trash and old records are swept", false, dur(func(c *config) *time.Duration { return &c.SweepInterval })},
	{"audit-key", "secret", "NOD_AUDIT_KEY", "", "secret that keys the audit chain (HMAC) and signs its heads", true, secret(func(c *config) *string { return &c.AuditKey }, "give a longer key, or none for plain hashes")},
	{"update-timeout", "duration", "NOD_UPDATE_TIMEOUT", "5m", "deadline for handling one update, all steps included", false, dur(func(c *config) *time.Duration { return &c.UpdateTimeout })},
	{"rate-chat", "number", "NOD_RATE_CHAT", "1", "messages a second to one chat", false, rate(func(c *config) *float64 { return &c.RateChat })},
	{"rate-chat-burst", "number", "NOD_RATE_CHAT_BURST", "3", "messages to one chat in a burst", false, rate(func(c *config) *float64 { return &c.RateChatBurst })},
	{"rate-group", "number", "NOD_RATE_GROUP", "20", "messages a minute to one group", false, rate(func(c *config) *float64 { return &c.RateGroup })},
	{"rate-global", "number", "NOD_RATE_GLOBAL", "30", "messages a second in all", false, rate(func(c *config) *float64 { return &c.RateGlobal })},
	{"timezone", "IANA name", "NOD_TIMEZONE", "UTC", "time zone of a chat that has not set one", false, func(c *config, v string) error {
		loc, err := nod.LoadZone(v)
		if err != nil {
			return fmt.Errorf("%q is not an IANA time zone such as Europe/Berlin", v)
		}
		c.TimeZone = loc
		return nil
	}},
	{"transcribe-model", "name", "NOD_TRANSCRIBE_MODEL", "whisper-1", "speech-to-text model for voice messages", false, str(func(c *config) *string { return &c.TranscribeModel })},
	{"transcribe-url", "url", "NOD_TRANSCRIBE_URL", "", "OpenAI-compatible endpoint for speech-to-text only; unset, OPENAI_BASE_URL", false, str(func(c *config) *string { return &c.TranscribeURL })},
	{"voice-max", "duration", "NOD_VOICE_MAX", "5m", "longest voice message transcribed", false, dur(func(c *config) *time.Duration { return &c.VoiceMax })},
	{"mcp-config", "path", "NOD_MCP_CONFIG", "", "JSON file of MCP servers whose tools the agent may use ({\"mcpServers\": …}, see README); unset, none", false, str(func(c *config) *string { return &c.MCPConfig })},
	{"log-format", "text|json", "NOD_LOG_FORMAT", "text", "log format: text or json", false, func(c *config, v string) error {
		if v != "text" && v != "json" {
			return fmt.Errorf("%q is not text or json", v)
		}
		c.LogFormat = v
		return nil
	}},
}

// loadConfig reads flags from args and the environment through getenv.
// Secrets never appear as flag defaults, so -h cannot print them.
func loadConfig(name string, args []string, getenv func(string) string, out io.Writer) (config, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() { printFlags(out, name) }
	vals := make([]string, len(settings))
	for i, s := range settings {
		fs.StringVar(&vals[i], s.flag, "", s.help)
	}
	if err := fs.Parse(args); err != nil {
		return config{}, nil, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var (
		c    = config{getenv: getenv}
		errs []error
	)
	for i, s := range settings {
		v := s.def
		if e := getenv(s.env); e != "" {
			v = e
		}
		if given[s.flag] {
			v = vals[i]
		}
		if err := s.set(&c, v); err != nil {
			errs = append(errs, fmt.Errorf("-%s / %s: %w", s.flag, s.env, err))
		}
	}
	if c.ClassifierModel == "" {
		c.ClassifierModel = c.Model
	}
	if c.TranscribeURL == "" {
		c.TranscribeURL = c.BaseURL
	}
	return c, fs.Args(), errors.Join(errs...)
}

// loadMCP reads NOD_MCP_CONFIG's file, if one is named, into c.MCP.
func (c *config) loadMCP() error {
	if c.MCPConfig == "" {
		return nil
	}
	mcp, err := mcpclient.LoadEnv(c.MCPConfig, c.getenv)
	if err != nil {
		return fmt.Errorf("NOD_MCP_CONFIG (-mcp-config): %w", err)
	}
	c.MCP = mcp
	return nil
}

// secrets are the values logs must never show: every one given, since
// loadConfig refuses those too short to mask.
func (c config) secrets() []string {
	var out []string
	for _, s := range []string{c.Token, c.APIKey, c.WebhookSecret, c.AuditKey} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// printFlags lists the settings as flags, each with the kind of value it
// takes, its variable and its default (never a secret's).
func printFlags(w io.Writer, name string) {
	fmt.Fprintf(w, "Flags of %s (each may be set by the variable named instead; a flag wins):\n", name)
	for _, s := range settings {
		fmt.Fprintf(w, "  -%s %s\n    \t%s (%s", s.flag, s.kind, s.help, s.env)
		if s.def != "" && !s.secret {
			fmt.Fprintf(w, ", default %s", s.def)
		}
		fmt.Fprintln(w, ")")
	}
}
