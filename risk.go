package nod

// Risk is how much a tool may change; the tool registry, not the prompt,
// decides what needs confirmation from it.
type Risk int

// Tool risks.
const (
	ReadOnly    Risk = iota // runs at once
	Mutating                // asks unless the person explicitly requested it
	Destructive             // always asks, with a typed confirmation
	// Decides: tools that pass on the person's decision on proposals, stated in
	// words: applied only on their verified words, never queued.
	Decides
)

func (r Risk) String() string {
	switch r {
	case ReadOnly:
		return "read-only"
	case Mutating:
		return "mutating"
	case Destructive:
		return "destructive"
	case Decides:
		return "decision"
	}
	return "unknown"
}
