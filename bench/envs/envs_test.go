package envs

import (
	"archive/tar"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"test-apps/black/src": "black+src", "test-apps/flutils": "flutils", "/test-apps/pyMonet/": "pyMonet", "owner/proj": "owner+proj",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseInErrors(t *testing.T) {
	for _, c := range []struct{ file, text, want string }{
		{"x.in", "pytest\n", "x.in: no \"# project: PATH\" line"},
		{"x.in", "# project: test-apps/x\npytest ; python_version<'3'\n", "x.in:2: \"pytest ; python_version<'3'\" is not a plain requirement"},
		{"y.in", "# project: test-apps/x\npytest\n", "y.in: project test-apps/x should be in x.in"},
		{"x.in", "# project: test-apps/x\n# dropped: a==1: why\n", "x.in: no requirement"},
	} {
		if _, err := ParseIn(c.file, []byte(c.text)); err == nil || err.Error() != c.want {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	s, err := ParseIn("black+src.in", []byte("# project: test-apps/black/src\n# dropped: a==1: no wheel\n\nregex==2023.10.3\npytest\n"))
	if err != nil || s.Project != "test-apps/black/src" || len(s.Requirements) != 2 || len(s.Dropped) != 1 || s.Dropped[0] != "a==1: no wheel" {
		t.Fatalf("%+v %v", s, err)
	}
}

// lockPin reads "name==version \" lines of a lock file.
var lockPin = regexp.MustCompile(`^([A-Za-z0-9._-]+)==([^ \\]+)`)

// normalize writes a package name as PEP 503 does.
func normalize(name string) string {
	return strings.ToLower(regexp.MustCompile(`[-_.]+`).ReplaceAllString(name, "-"))
}

// TestLocks checks the built-in specs: one per RepoExec project, each with
// a lock that pins every package of its .in at the .in's version and every
// package of the image's (ImageFile), every pin with its hashes, resolved
// with the settings of CompileArgs.
func TestLocks(t *testing.T) {
	specs, err := Specs()
	if err != nil {
		t.Fatal(err)
	}
	b, err := embedded.ReadFile(SpecDir + "/" + ImageFile)
	if err != nil {
		t.Fatal(err)
	}
	var image []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			image = append(image, l)
		}
	}
	for _, want := range []string{"pytest", "numpy", "timeout_decorator", "pandas", "datasets", "pip", "wheel"} {
		if !contains(image, want) {
			t.Errorf("%s lacks %s", ImageFile, want)
		}
	}
	if len(specs) != 23 {
		t.Fatalf("%d specs, want 23 (the RepoExec projects with tasks)", len(specs))
	}
	for _, s := range specs {
		if len(s.Lock) == 0 {
			t.Errorf("%s: no lock file", s.Name)
			continue
		}
		locked := map[string]string{}
		sc := bufio.NewScanner(strings.NewReader(string(s.Lock)))
		var last string
		for sc.Scan() {
			line := sc.Text()
			if m := lockPin.FindStringSubmatch(line); m != nil {
				if last != "" {
					t.Errorf("%s: %s has no hash", s.Name, last)
				}
				locked[normalize(m[1])], last = m[2], m[1]
			} else if strings.Contains(line, "--hash=sha256:") {
				last = ""
			}
		}
		for _, r := range s.Requirements {
			name := r[:strings.IndexAny(r+"=", "=<>!~")]
			_, version, pinned := strings.Cut(r, "==")
			got, ok := locked[normalize(name)]
			if !ok || pinned && got != version {
				t.Errorf("%s: requirement %s locked as %q", s.Name, r, got)
			}
		}
		for _, want := range image {
			if locked[normalize(want)] == "" {
				t.Errorf("%s: %s (the image's, %s) not locked", s.Name, want, ImageFile)
			}
		}
	}
}

// TestSpecsFollowPackageTxt checks each .in against its project's
// package.txt: the same pins, less those listed as dropped. The
// development projects' package.txt files are in testdata; $ACTOR_REPOS,
// when it holds codamosa's test-apps folder, adds every other project's.
func TestSpecsFollowPackageTxt(t *testing.T) {
	roots := []string{filepath.Join("testdata", "package-txt")}
	if r := os.Getenv("ACTOR_REPOS"); r != "" {
		roots = append(roots, r)
	}
	specs, err := Specs()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range specs {
		var b []byte
		err := os.ErrNotExist
		for _, root := range roots {
			if b, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(s.Project), "package.txt")); err == nil {
				break
			}
		}
		if err != nil {
			continue
		}
		checked++
		want := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				want[l] = true
			}
		}
		for _, d := range s.Dropped {
			pin, _, _ := strings.Cut(d, ":")
			if !want[pin] {
				t.Errorf("%s: dropped %s is not in package.txt", s.Name, pin)
			}
			delete(want, pin)
		}
		added := map[string]bool{}
		for _, a := range s.Added {
			req, _, _ := strings.Cut(a, ": ")
			added[req] = true
			if !contains(s.Requirements, req) {
				t.Errorf("%s: added %s is not required", s.Name, req)
			}
		}
		for _, r := range s.Requirements {
			if strings.ContainsAny(r, "=<>") && !want[r] && !added[r] {
				t.Errorf("%s: %s is neither a package.txt pin nor listed as added", s.Name, r)
			}
			delete(want, r)
		}
		for pin := range want {
			t.Errorf("%s: package.txt pin %s is neither required nor dropped", s.Name, pin)
		}
	}
	if checked < 3 {
		t.Errorf("checked %d projects' package.txt, want at least the 3 development projects' (testdata)", checked)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestInterpreterNeedsAFinishedEnvironment(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "flutils", "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "python"), nil, 0o755)
	if _, ok := Interpreter(dir, "test-apps/flutils"); ok {
		t.Error("an environment without its stamp (an interrupted setup) was used")
	}
	os.WriteFile(filepath.Join(dir, "flutils", stampFile), []byte(stampOf([]byte("x"), "3.10.13")), 0o644)
	if p, ok := Interpreter(dir, "test-apps/flutils"); !ok || p != filepath.Join(bin, "python") {
		t.Errorf("Interpreter = %s %v", p, ok)
	}
	if _, err := selectSpecs([]Spec{{Name: "flutils"}}, []string{"test-apps/nope"}); err == nil || !strings.Contains(err.Error(), "test-apps/nope") {
		t.Errorf("unknown project: %v", err)
	}
	if !reachable("/") || reachable(filepath.Join(dir, "missing")) {
		t.Error("reachable")
	}
}

// TestSystemFileFromDeb extracts a file from a .deb made here (ar archive,
// data.tar.xz), checking the package's hash first.
func TestSystemFileFromDeb(t *testing.T) {
	var tb bytes.Buffer
	xw, err := xz.NewWriter(&tb)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(xw)
	for name, body := range map[string]string{"./etc/": "", "./etc/mime.types": "application/javascript\tjs\n"} {
		h := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}
		if body == "" {
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		}
		tw.WriteHeader(h)
		tw.Write([]byte(body))
	}
	tw.Close()
	xw.Close()
	var deb bytes.Buffer
	deb.WriteString("!<arch>\n")
	for _, m := range []struct {
		name string
		body []byte
	}{{"debian-binary", []byte("2.0\n")}, {"control.tar.xz", []byte("odd")}, {"data.tar.xz", tb.Bytes()}} {
		fmt.Fprintf(&deb, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", m.name, "0", "0", "0", "100644", len(m.body))
		deb.Write(m.body)
		if len(m.body)%2 == 1 {
			deb.WriteByte('\n')
		}
	}
	sum := sha256.Sum256(deb.Bytes())
	f := SystemFile{Path: "/etc/mime.types", Deb: "x.deb", DebSHA256: hex.EncodeToString(sum[:]), Member: "./etc/mime.types"}
	if b, err := debMember(deb.Bytes(), f); err != nil || string(b) != "application/javascript\tjs\n" {
		t.Fatalf("debMember = %q, %v", b, err)
	}
	bad := f
	bad.DebSHA256 = strings.Repeat("0", 64)
	if _, err := debMember(deb.Bytes(), bad); err == nil || !strings.Contains(err.Error(), "x.deb: SHA-256") {
		t.Errorf("a package with another hash: %v", err)
	}
	missing := f
	missing.Member = "./etc/other"
	if _, err := debMember(deb.Bytes(), missing); err == nil || err.Error() != "x.deb: no ./etc/other in data.tar.xz" {
		t.Errorf("a missing member: %v", err)
	}
	dir := t.TempDir()
	if _, ok := SystemFileIn(dir, f); ok {
		t.Error("a system file found before setup put it there")
	}
	os.MkdirAll(filepath.Join(dir, systemDir, "etc"), 0o755)
	os.WriteFile(filepath.Join(dir, systemDir, "etc", "mime.types"), nil, 0o644)
	if p, ok := SystemFileIn(dir, f); !ok || p != filepath.Join(dir, systemDir, "etc", "mime.types") {
		t.Errorf("SystemFileIn = %s %v", p, ok)
	}
}
