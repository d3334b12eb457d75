package bot

import (
	"errors"
	"testing"

	"github.com/nodbot/nod"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
)

func TestActionRoundTrip(t *testing.T) {
	t.Parallel()
	for _, a := range []nod.Action{
		{Kind: nod.ActConfirm, ID: "k3x9m2p7qa", N: 1},
		{Kind: nod.ActReject, ID: "k3x9m2p7qa", N: 10},
		{Kind: nod.ActConfirmAll, ID: "k3x9m2p7qa"},
		{Kind: nod.ActUndo, ID: "abcdefghij"},
		{Kind: nod.ActToggle, ID: "c1"},
	} {
		s, err := EncodeAction(a)
		if err != nil {
			t.Fatalf("EncodeAction(%+v): %v", a, err)
		}
		got, err := DecodeAction(s)
		if err != nil || got != a {
			t.Errorf("DecodeAction(%q) = %+v, %v; want %+v", s, got, err, a)
		}
	}
}

func TestDecodeActionRejectsForgeries(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "1", "1c.", "2c.abc.1", "1Z.abc", "1c.abc.0", "1c.abc.-1", "1c.abc.01", "1c.a b", "1c.abc.1.2", "1c.<b>", "approve_all", "1c.abc.99999999999999999999"} {
		if a, err := DecodeAction(s); !errors.Is(err, nod.ErrInvalid) {
			t.Errorf("DecodeAction(%q) = %+v, %v; want ErrInvalid", s, a, err)
		}
	}
}

func FuzzDecodeAction(f *testing.F) {
	for _, s := range []string{"1c.k3x9m2p7qa.1", "1C.k3x9m2p7qa", "1u.x", "1c.a.1.1", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := DecodeAction(s)
		if err != nil {
			return
		}
		back, err := EncodeAction(a)
		if err != nil {
			t.Fatalf("DecodeAction(%q) accepted %+v, which does not encode: %v", s, a, err)
		}
		if back != s {
			t.Fatalf("DecodeAction(%q) = %+v, which encodes as %q", s, a, back)
		}
		if len(back) > 64 {
			t.Fatalf("%q is %d bytes", back, len(back))
		}
	})
}
