package main

import (
	"bytes"
	"context"
	"fmt"
	"runtime/pprof"
	"time"

	"github.com/google/pprof/profile"
)

// Parts of the process a load run's CPU profile is split into, by the
// pprof label "part" that goroutines inherit from the one that started
// them: nod (or the echo bot), the fake servers, and the bench driving
// them. Samples without the label are the runtime's own (GC workers,
// the scheduler).
const (
	partNod   = "nod"
	partFake  = "fake"
	partBench = "bench"
)

// labeled runs f with the goroutine, and every goroutine it starts,
// labeled as part.
func labeled(part string, f func()) {
	pprof.Do(context.Background(), pprof.Labels("part", part), func(context.Context) { f() })
}

// cpuSplit is the CPU time a profiled run spent per part.
type cpuSplit map[string]time.Duration

// own is nod's CPU: its labeled samples plus its share of the unlabeled
// runtime work (garbage collection is paid for by whoever allocates, so it
// is shared out in proportion to the labeled parts).
func (c cpuSplit) own() time.Duration {
	var labeled time.Duration
	for part, d := range c {
		if part != "" {
			labeled += d
		}
	}
	if labeled == 0 {
		return 0
	}
	return c[partNod] + time.Duration(float64(c[""])*float64(c[partNod])/float64(labeled))
}

// profiled runs f under the CPU profiler and splits its samples by part.
func profiled(f func()) (cpuSplit, error) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	f()
	pprof.StopCPUProfile()
	p, err := profile.Parse(&buf)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	cpu := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			cpu = i
		}
	}
	if cpu < 0 {
		return nil, fmt.Errorf("cpu profile: no cpu samples")
	}
	split := cpuSplit{}
	for _, s := range p.Sample {
		var part string
		if l := s.Label["part"]; len(l) > 0 {
			part = l[0]
		}
		split[part] += time.Duration(s.Value[cpu])
	}
	return split, nil
}
