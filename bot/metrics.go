package bot

import "github.com/prometheus/client_golang/prometheus"

// metrics are the bot's counters, registered on Options.Metrics when set.
type metrics struct {
	updates  *prometheus.CounterVec // by kind
	apiError *prometheus.CounterVec // Telegram API errors by method and code
	retries  *prometheus.CounterVec // waits before a retry, by reason
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		updates:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_updates_total", Help: "Telegram updates by kind."}, []string{"kind"}),
		apiError: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_telegram_errors_total", Help: "Telegram Bot API errors by method and kind."}, []string{"method", "kind"}),
		retries:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_telegram_retries_total", Help: "Waits before retrying a Telegram call, by reason."}, []string{"reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.updates, m.apiError, m.retries)
	}
	return m
}
