package storage_test

import (
	"reflect"
	"testing"

	"github.com/nodbot/nod/storage"
)

// maxMethods bounds the DB and every repository it hands out: storage is
// cut by aggregate, not grown into one type that does everything.
const maxMethods = 30

func TestRepositoriesAreSmall(t *testing.T) {
	db := reflect.TypeFor[*storage.DB]()
	if n := db.NumMethod(); n > maxMethods {
		t.Errorf("*storage.DB has %d methods, want at most %d", n, maxMethods)
	}
	for i := range db.NumMethod() {
		m := db.Method(i)
		if m.Type.NumIn() != 1 || m.Type.NumOut() != 1 {
			continue
		}
		repo := m.Type.Out(0)
		if repo.Kind() != reflect.Pointer || repo.Elem().PkgPath() != db.Elem().PkgPath() {
			continue
		}
		if n := repo.NumMethod(); n > maxMethods {
			t.Errorf("%s has %d methods, want at most %d", repo, n, maxMethods)
		}
	}
}
