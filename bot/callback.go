package bot

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nodbot/nod"
)

// Callback data is "1" (the format version), one letter for the action
// kind, then the record id and, for item actions, the item number:
// "1c.k3x9m2p7qa.2". It names a server-side record and authorizes nothing:
// the handler looks the record up and checks who pressed.
const codecVersion = '1'

var kindLetters = map[nod.ActionKind]byte{
	nod.ActConfirm: 'c', nod.ActReject: 'r', nod.ActConfirmAll: 'C', nod.ActRejectAll: 'R',
	nod.ActUndo: 'u', nod.ActOpenTask: 't', nod.ActToggle: 'x', nod.ActSetMode: 'm', nod.ActRestore: 'o',
	nod.ActApplyAnyway: 'a', nod.ActSkip: 's', nod.ActRetry: 'y', nod.ActSkipRest: 'k', nod.ActAbort: 'b', nod.ActUndoForce: 'f', nod.ActRepropose: 'p', nod.ActKeep: 'e',
	nod.ActAcceptRule: 'A', nod.ActDeclineRule: 'D', nod.ActRevokeRule: 'V', nod.ActStopRule: 'S', nod.ActAcceptReading: 'g',
	nod.ActTaskPage: 'P',
	nod.ActUndoZone: 'z', nod.ActRemindDone: 'd', nod.ActSnooze: 'h', nod.ActZoneAccept: 'T', nod.ActZoneDecline: 'N',
	nod.ActUndoAll: 'L', nod.ActUndoPick: 'O',
	nod.ActZoneCity: 'W',
	nod.ActCardDone: 'v', nod.ActCardHour: 'H', nod.ActCardTomorrow: 'M', nod.ActCardReopen: 'E',
	nod.ActKeepDeletion: 'K', nod.ActUndoLeave: 'l',
}

var letterKinds = func() map[byte]nod.ActionKind {
	m := map[byte]nod.ActionKind{}
	for k, l := range kindLetters {
		m[l] = k
	}
	return m
}()

// maxCallbackData is Telegram's limit on callback_data, in bytes.
const maxCallbackData = 64

// EncodeAction renders an action as callback data.
func EncodeAction(a nod.Action) (string, error) {
	l, ok := kindLetters[a.Kind]
	if !ok {
		return "", fmt.Errorf("encode action: unknown kind %d: %w", a.Kind, nod.ErrInvalid)
	}
	if !validID(a.ID) || a.N < 0 {
		return "", fmt.Errorf("encode action: bad id %q or number %d: %w", a.ID, a.N, nod.ErrInvalid)
	}
	s := string([]byte{codecVersion, l}) + "." + a.ID
	if a.N > 0 {
		s += "." + strconv.Itoa(a.N)
	}
	if len(s) > maxCallbackData {
		return "", fmt.Errorf("encode action: %d bytes: %w", len(s), nod.ErrInvalid)
	}
	return s, nil
}

// DecodeAction parses callback data. It accepts exactly what EncodeAction
// produces and nothing else.
func DecodeAction(s string) (nod.Action, error) {
	bad := fmt.Errorf("callback data %q: %w", excerpt(s, 70), nod.ErrInvalid)
	if len(s) < 4 || len(s) > maxCallbackData || s[0] != codecVersion || s[2] != '.' {
		return nod.Action{}, bad
	}
	kind, ok := letterKinds[s[1]]
	if !ok {
		return nod.Action{}, bad
	}
	id, num, hasNum := strings.Cut(s[3:], ".")
	a := nod.Action{Kind: kind, ID: id}
	if hasNum {
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 || strconv.Itoa(n) != num {
			return nod.Action{}, bad
		}
		a.N = n
	}
	if !validID(id) {
		return nod.Action{}, bad
	}
	return a, nil
}

func validID(id string) bool {
	if id == "" || len(id) > nod.MaxActionID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
