package nod_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxTrackedSize is the largest file the repository may track: every
// clone downloads every version of every file, so anything larger is
// almost always a build output or a data set that belongs elsewhere.
const maxTrackedSize = 1 << 20

// trackedFiles lists the files git tracks, or skips the test where there is
// no git or no repository (a module download, a tarball).
func trackedFiles(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	if _, err := os.Stat(".git"); err != nil { // a directory, or a worktree's file
		t.Skip("not a git checkout")
	}
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestNoBinariesTracked keeps built programs and large files out of the
// repository: no tracked file is over 1 MB, and none is an executable or
// object file (ELF, Mach-O, PE).
func TestNoBinariesTracked(t *testing.T) {
	for _, name := range trackedFiles(t) {
		fi, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree; the commit that deletes it is fine
		}
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > maxTrackedSize {
			t.Errorf("%s is tracked and %d bytes, over %d: git rm --cached it (and ignore it in .gitignore if it is built)", name, fi.Size(), maxTrackedSize)
		}
		if kind := executableKind(t, name); kind != "" {
			t.Errorf("%s is tracked and is an executable (%s): git rm --cached it and ignore it in .gitignore", name, kind)
		}
	}
}

// executableKind names the executable format whose magic number starts
// the file, or returns "".
func executableKind(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 64)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case len(head) >= 4 && isMachO(binary.BigEndian.Uint32(head)):
		return "Mach-O"
	case bytes.HasPrefix(head, []byte("MZ")) && isPE(f, head):
		return "PE"
	}
	return ""
}

func isMachO(magic uint32) bool {
	switch magic {
	case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, // thin, either byte order
		0xcafebabe, 0xbebafeca: // fat (universal)
		return true
	}
	return false
}

// isPE reports whether an "MZ" file is a PE image: its DOS header points
// at a "PE\0\0" signature. A text file may start with "MZ"; it will not
// carry the signature.
func isPE(f *os.File, head []byte) bool {
	if len(head) < 0x40 {
		return false
	}
	off := int64(binary.LittleEndian.Uint32(head[0x3c:]))
	sig := make([]byte, 4)
	if _, err := f.ReadAt(sig, off); err != nil {
		return false
	}
	return string(sig) == "PE\x00\x00"
}

func TestExecutableKind(t *testing.T) {
	pe := make([]byte, 0x84)
	copy(pe, "MZ")
	binary.LittleEndian.PutUint32(pe[0x3c:], 0x80)
	copy(pe[0x80:], "PE\x00\x00")
	for _, tc := range []struct {
		name string
		head []byte
		want string
	}{
		{"elf", []byte("\x7fELF\x02\x01\x01"), "ELF"},
		{"macho64", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, "Mach-O"},
		{"fat", []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2}, "Mach-O"},
		{"pe", pe, "PE"},
		{"mz text", []byte("MZ is how this note starts, and it is long enough to hold a DOS header's worth of words."), ""},
		{"text", []byte("package nod\n"), ""},
		{"empty", nil, ""},
	} {
		name := t.TempDir() + "/f"
		if err := os.WriteFile(name, tc.head, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := executableKind(t, name); got != tc.want {
			t.Errorf("executableKind(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// outsideRefs are ways of pointing at documents a person who clones nod
// does not have (the design notes it was built from, its issue tracker,
// the steps of its development). The design is docs/design.md; cite its
// sections instead, or say the thing itself.
var outsideRefs = regexp.MustCompile(`\.\./shared|DESIGN(\.md)? §|SEED[-]CASES|(?i:\bseeds? 00[0-9]|\bissue [0-9]|\bstop [0-9])`)

// designHeading matches a numbered heading of docs/design.md, designCite
// a citation of one.
var (
	designHeading = regexp.MustCompile(`(?m)^#{2,3} ([0-9]+(?:\.[0-9]+)?)\.? `)
	designCite    = regexp.MustCompile(`design\.md §([0-9]+(?:\.[0-9]+)?)`)
)

// TestReferencesStayInside keeps Go files and Markdown documents free of
// pointers outside the repository, and their citations of docs/design.md
// pointing at sections it has.
func TestReferencesStayInside(t *testing.T) {
	design, err := os.ReadFile("docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]bool{}
	for _, m := range designHeading.FindAllStringSubmatch(string(design), -1) {
		sections[m[1]] = true
	}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := outsideRefs.FindString(line); m != "" {
				t.Errorf("%s:%d refers to %q, outside the repository: point into docs/design.md or say it here", path, i+1, m)
			}
			for _, m := range designCite.FindAllStringSubmatch(line, -1) {
				if !sections[strings.TrimSuffix(m[1], ".")] {
					t.Errorf("%s:%d cites docs/design.md §%s, which has no such section", path, i+1, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// subjectsFrom is the first commit held to maxSubject; the history before
// it is kept as it was written.
const (
	subjectsFrom = "bd93739"
	maxSubject   = 72
)

// TestCommitSubjectsShort keeps commit subjects within maxSubject
// characters, where `git log --oneline` and review tools show them whole.
func TestCommitSubjectsShort(t *testing.T) {
	trackedFiles(t) // skips outside a checkout
	if exec.Command("git", "cat-file", "-e", subjectsFrom+"^{commit}").Run() != nil {
		t.Skipf("%s is not in this clone's history", subjectsFrom)
	}
	out, err := exec.Command("git", "log", "--format=%h %s", subjectsFrom+"^..HEAD").Output()
	if err != nil {
		t.Fatalf("git log: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		hash, subject, _ := strings.Cut(line, " ")
		if n := utf8.RuneCountInString(subject); n > maxSubject {
			t.Errorf("commit %s's subject has %d characters, over %d: %q", hash, n, maxSubject, subject)
		}
	}
}

// ciFuzz reads .ci/run's fuzz lines: the target each names and the
// package it runs in.
var ciFuzz = regexp.MustCompile(`-fuzz '\^(Fuzz\w+)\$'.* \./(\S+)`)

// TestFuzzTargetsRunInCI keeps every fuzz target in CI's fuzz step, run in
// the package that holds it: a target moved to another package would
// otherwise match nothing there, and CI would pass without fuzzing it.
func TestFuzzTargetsRunInCI(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, m := range ciFuzz.FindAllStringSubmatch(string(ci), -1) {
		listed[m[1]] = m[2]
	}
	found := map[string]string{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(b), -1) {
			found[m[1]] = filepath.Dir(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, dir := range found {
		if pkg, ok := listed[name]; !ok {
			t.Errorf("%s (in %s) is not fuzzed in .ci/run", name, dir)
		} else if pkg != dir {
			t.Errorf(".ci/run fuzzes %s in ./%s, but it is in ./%s", name, pkg, dir)
		}
	}
	for name, pkg := range listed {
		if _, ok := found[name]; !ok {
			t.Errorf(".ci/run fuzzes %s in ./%s, which has no such target", name, pkg)
		}
	}
}

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
