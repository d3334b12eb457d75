package bot

import "testing"

// The transcriber reads a file's format from its name.
func TestExtension(t *testing.T) {
	for _, c := range []struct{ mime, name, want string }{
		{"audio/ogg", "", ".ogg"}, // a voice note, stored as .oga by Telegram
		{"", "", ".ogg"},
		{"audio/ogg", "memo.oga", ".ogg"},
		{"audio/mpeg", "Interview.MP3", ".mp3"},
		{"audio/mpeg", "", ".mp3"},
		{"audio/x-m4a", "", ".m4a"},
		{"audio/webm;codecs=opus", "", ".webm"}, // a browser's recording
		{"audio/flac", "take.flac", ".flac"},
	} {
		if got := extension(c.mime, c.name); got != c.want {
			t.Errorf("extension(%q, %q) = %q, want %q", c.mime, c.name, got, c.want)
		}
	}
}
