// Package formatting renders nod's messages: domain values in, Telegram
// HTML and inline keyboards out. It is pure: no I/O, no clock reads, no
// output that depends on map order. Every piece of user or model text is
// escaped; the templates' own tags are the only markup.
package formatting
