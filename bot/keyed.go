package bot

import "sync"

// keyedMutex serializes work per key (a change set's id); a key's entry
// lives only while someone holds or waits for it.
type keyedMutex struct {
	mu   sync.Mutex
	keys map[string]*keyedEntry
}

type keyedEntry struct {
	mu      sync.Mutex
	waiters int
}

// lock locks key and returns its unlock.
func (k *keyedMutex) lock(key string) (unlock func()) {
	k.mu.Lock()
	if k.keys == nil {
		k.keys = map[string]*keyedEntry{}
	}
	e := k.keys[key]
	if e == nil {
		e = &keyedEntry{}
		k.keys[key] = e
	}
	e.waiters++
	k.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		k.mu.Lock()
		if e.waiters--; e.waiters == 0 {
			delete(k.keys, key)
		}
		k.mu.Unlock()
	}
}
