package bot

import "github.com/prometheus/client_golang/prometheus"

// metrics are the bot's counters, registered on Options.Metrics when set.
type metrics struct {
	updates   *prometheus.CounterVec // by kind
	apiError  *prometheus.CounterVec // Telegram API errors by method and code
	retries   *prometheus.CounterVec // waits before a retry, by reason
	messages  prometheus.Gauge       // messages queued or being handled
	presses   prometheus.Gauge       // button presses being handled, follow-up edits included
	sweeps    prometheus.Counter     // sweeps run
	paced     prometheus.Counter     // messages held back for Telegram's rate limits
	joined    prometheus.Counter     // messages that joined their sender's turn in progress
	reminders prometheus.Counter     // reminders sent
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		updates:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_updates_total", Help: "Telegram updates by kind."}, []string{"kind"}),
		apiError:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_telegram_errors_total", Help: "Telegram Bot API errors by method and kind."}, []string{"method", "kind"}),
		retries:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_telegram_retries_total", Help: "Waits before retrying a Telegram call, by reason."}, []string{"reason"}),
		messages:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "nod_messages_in_flight", Help: "Messages queued or being handled, their replies included."}),
		presses:   prometheus.NewGauge(prometheus.GaugeOpts{Name: "nod_presses_in_flight", Help: "Button presses being handled, their edits after the answer included."}),
		sweeps:    prometheus.NewCounter(prometheus.CounterOpts{Name: "nod_sweeps_total", Help: "Sweeps run: owed messages, expiry, trash."}),
		paced:     prometheus.NewCounter(prometheus.CounterOpts{Name: "nod_messages_paced_total", Help: "Messages held back to keep within Telegram's rate limits."}),
		joined:    prometheus.NewCounter(prometheus.CounterOpts{Name: "nod_messages_joined_total", Help: "Messages that joined their sender's agent turn in progress."}),
		reminders: prometheus.NewCounter(prometheus.CounterOpts{Name: "nod_reminders_sent_total", Help: "Task reminders sent."}),
	}
	if reg != nil {
		reg.MustRegister(m.updates, m.apiError, m.retries, m.messages, m.presses, m.sweeps, m.paced, m.joined, m.reminders)
	}
	return m
}
