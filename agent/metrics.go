package agent

import "github.com/prometheus/client_golang/prometheus"

// metrics are the agent's counters. Registered on Options.Metrics when set.
type metrics struct {
	turns     *prometheus.CounterVec // by outcome
	llm       *prometheus.CounterVec // model steps by outcome
	latency   prometheus.Histogram   // of one model step
	proposals *prometheus.CounterVec // changes by route: queued, applied, blocked
	tokens    *prometheus.CounterVec // prompt and completion tokens reported
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		turns:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_turns_total", Help: "Agent turns by outcome."}, []string{"outcome"}),
		llm:       prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_agent_llm_requests_total", Help: "Agent model steps by outcome."}, []string{"outcome"}),
		latency:   prometheus.NewHistogram(prometheus.HistogramOpts{Name: "nod_agent_llm_seconds", Help: "Latency of one agent model step.", Buckets: prometheus.ExponentialBuckets(0.05, 2, 10)}),
		proposals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_changes_total", Help: "Mutating changes by route."}, []string{"route"}),
		tokens:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nod_agent_llm_tokens_total", Help: "Tokens the model reported, by kind."}, []string{"kind"}),
	}
	if reg != nil {
		reg.MustRegister(m.turns, m.llm, m.latency, m.proposals, m.tokens)
	}
	return m
}
