package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// box is the sandbox for python3 from PATH; pyBoxes adds, when started as
// root, one for the system python3 if other users can reach it (so the mode
// that shows candidates as root in a user namespace is tested with Python).
var (
	box     *Sandbox
	pyBoxes []pyBox
)

// pyBox is a sandbox and a Python interpreter it can run.
type pyBox struct {
	box *Sandbox
	py  string
}

func TestMain(m *testing.M) {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		out, err := exec.Command(py, "-c", "import sys, os; print(sys.executable, os.path.realpath(sys.executable), sys.prefix, sys.base_prefix)").Output()
		if err != nil {
			continue
		}
		reach := strings.Fields(string(out))
		b, err := New(reach...)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if box != nil && b.Isolation() == box.Isolation() {
			b.Close()
			continue
		}
		fmt.Fprintf(os.Stderr, "sandbox isolation for %s: %+v\n", reach[0], b.Isolation())
		for _, w := range b.Warnings() {
			fmt.Fprintln(os.Stderr, "sandbox warning:", w)
		}
		if box == nil {
			box = b
		}
		pyBoxes = append(pyBoxes, pyBox{b, reach[0]})
	}
	if box == nil {
		fmt.Fprintln(os.Stderr, "python3 is required")
		os.Exit(1)
	}
	code := m.Run()
	for _, pb := range pyBoxes {
		pb.box.Close()
	}
	os.Exit(code)
}

// eachPy runs f as a subtest for every sandbox and interpreter pair.
func eachPy(t *testing.T, f func(t *testing.T, pb pyBox)) {
	for _, pb := range pyBoxes {
		t.Run(fmt.Sprintf("%+v", pb.box.Isolation()), func(t *testing.T) { f(t, pb) })
	}
}

// workdir returns a folder the slot's user of box b may write.
func workdir(t *testing.T, slot int, bs ...*Sandbox) string {
	t.Helper()
	b := box
	if len(bs) > 0 {
		b = bs[0]
	}
	dir := tempRoot(t)
	if err := b.Own(dir, slot); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tempRoot returns a new folder that any user can pass through.
func tempRoot(t *testing.T) string {
	t.Helper()
	dir, err := WorkRoot("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// runPy runs a Python snippet in pb's sandbox.
func runPy(t *testing.T, pb pyBox, code string, lim Limits) Result {
	t.Helper()
	dir := workdir(t, 0, pb.box)
	return pb.box.Run(context.Background(), Command{
		Path:   pb.py,
		Args:   []string{"-c", code},
		Dir:    dir,
		Env:    []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir},
		Limits: lim,
	})
}

func TestExitAndOutput(t *testing.T) {
	r := box.Run(context.Background(), Command{
		Path: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"},
		Dir: workdir(t, 1), Limits: DefaultLimits(10 * time.Second), Slot: 1,
	})
	if r.Err != nil || r.Exit != 3 || r.Passed() || r.Reason() != "exit status 3" {
		t.Fatalf("result %+v reason %q", r, r.Reason())
	}
	if !bytes.Contains(r.Output, []byte("out\n")) || !bytes.Contains(r.Output, []byte("err\n")) {
		t.Fatalf("output %q", r.Output)
	}
	r = box.Run(context.Background(), Command{Path: "/nonexistent", Dir: workdir(t, 0), Limits: DefaultLimits(time.Second)})
	if r.Passed() || r.Exit != 127 || !bytes.Contains(r.Output, []byte("no such file")) {
		t.Fatalf("missing program: %+v %q", r, r.Output)
	}
}

// TestTimeoutKillsTree runs a process that starts a background child and a
// child that escapes into its own session, then loops forever: the limit
// kills all of them. The sleeps' durations carry a nonce, so that another
// run of this test on the machine is not taken for a survivor.
func TestTimeoutKillsTree(t *testing.T) {
	dir := workdir(t, 0)
	nonce := fmt.Sprintf("%06d", time.Now().UnixNano()%1_000_000)
	start := time.Now()
	r := box.Run(context.Background(), Command{
		Path:   "/bin/sh",
		Args:   []string{"-c", "sleep 300." + nonce + " & echo $! > bg.pid; setsid sleep 301." + nonce + " & while :; do :; done"},
		Dir:    dir,
		Limits: DefaultLimits(time.Second),
	})
	if !r.TimedOut || r.Passed() || !strings.HasPrefix(r.Reason(), "timeout: killed after 1") {
		t.Fatalf("result %+v reason %q", r, r.Reason())
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("run took %s", d)
	}
	if iso := box.Isolation(); iso.PID || iso.UID {
		// Killed processes leave the process table when the kernel has
		// torn them down, which a loaded machine can take a moment to do:
		// a survivor is one still there after 5 s.
		var out []byte
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if out, _ = exec.Command("pgrep", "-f", "sleep 30[01]\\."+nonce).Output(); len(bytes.TrimSpace(out)) == 0 {
				return
			}
		}
		t.Fatalf("processes survived the run: %s", out)
	}
}

func TestCPULimit(t *testing.T) {
	eachPy(t, func(t *testing.T, pb pyBox) {
		// The wall-clock limit is far away: on a loaded machine one CPU
		// second can take many seconds.
		lim := DefaultLimits(90 * time.Second)
		lim.CPU = time.Second
		r := runPy(t, pb, "while True: pass", lim)
		if r.Signal != syscall.SIGXCPU || r.Reason() != "CPU time limit exceeded (SIGXCPU)" {
			t.Fatalf("result %+v reason %q", r, r.Reason())
		}
	})
}

// TestMemory allocates 50 GB: the address-space limit turns it into a
// MemoryError instead of an out-of-memory machine.
func TestMemory(t *testing.T) {
	eachPy(t, func(t *testing.T, pb pyBox) {
		r := runPy(t, pb, "x = bytearray(50 * 1024**3)\nprint('allocated')", DefaultLimits(30*time.Second))
		if r.Passed() || !bytes.Contains(r.Output, []byte("MemoryError")) || bytes.Contains(r.Output, []byte("allocated")) {
			t.Fatalf("result %+v output %q", r, r.Output)
		}
	})
}

func TestFileSize(t *testing.T) {
	eachPy(t, func(t *testing.T, pb pyBox) {
		lim := DefaultLimits(20 * time.Second)
		lim.FileSize = 1 << 20
		r := runPy(t, pb, "open('big', 'wb').write(b'x' * (4 << 20))", lim)
		if r.Passed() || !bytes.Contains(r.Output, []byte("File too large")) {
			t.Fatalf("result %+v output %q", r, r.Output)
		}
	})
}

// TestForkBomb runs a fork bomb: the process limit stops it, the timeout
// ends it and nothing of it survives.
func TestForkBomb(t *testing.T) {
	eachPy(t, func(t *testing.T, pb pyBox) {
		bomb := "import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n"
		start := time.Now()
		r := runPy(t, pb, bomb, DefaultLimits(3*time.Second))
		if r.Passed() || !r.TimedOut {
			t.Fatalf("result %+v output %q", r, r.Output)
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Fatalf("run took %s", d)
		}
		if uid := pb.box.UID(0); uid >= 0 {
			if n := countUID(uid); n != 0 {
				t.Fatalf("%d processes of uid %d survived", n, uid)
			}
		}
		// The machine still works: a new run passes.
		if r := runPy(t, pb, "print(1)", DefaultLimits(20*time.Second)); !r.Passed() {
			t.Fatalf("run after the fork bomb: %+v %q", r, r.Output)
		}
	})
}

// TestNetwork has a candidate connect to a listener of this process and
// to an outside address.
func TestNetwork(t *testing.T) {
	eachPy(t, func(t *testing.T, pb pyBox) {
		if !pb.box.Isolation().Network {
			if os.Getenv("ACTOR_REQUIRE_SANDBOX") == "1" {
				t.Fatal("no network namespace on this machine")
			}
			t.Skip("no network namespace on this machine (ACTOR_REQUIRE_SANDBOX=1 makes this fail)")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		accepted := make(chan bool, 1)
		go func() {
			c, err := ln.Accept()
			if err == nil {
				c.Close()
			}
			accepted <- err == nil
		}()
		port := ln.Addr().(*net.TCPAddr).Port
		code := fmt.Sprintf("import socket\nsocket.create_connection(('127.0.0.1', %d), timeout=5)\nprint('connected')", port)
		r := runPy(t, pb, code, DefaultLimits(20*time.Second))
		if r.Passed() || bytes.Contains(r.Output, []byte("connected")) {
			t.Fatalf("connection succeeded: %+v %q", r, r.Output)
		}
		ln.Close()
		if <-accepted {
			t.Fatal("the listener accepted a connection from the sandbox")
		}
		r = runPy(t, pb, "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=5)", DefaultLimits(20*time.Second))
		if r.Passed() || !bytes.Contains(r.Output, []byte("Network is unreachable")) {
			t.Fatalf("outside connection: %+v %q", r, r.Output)
		}
	})
}

// TestFilesOutside has a candidate delete a folder and overwrite a file
// outside its working directory.
func TestFilesOutside(t *testing.T) {
	eachPy(t, func(t *testing.T, pb pyBox) {
		if !pb.box.Isolation().ProtectsFiles() {
			if os.Getenv("ACTOR_REQUIRE_SANDBOX") == "1" {
				t.Fatal("files outside the work folder are not protected on this machine")
			}
			t.Skip("files are not protected here: neither root nor user namespaces (ACTOR_REQUIRE_SANDBOX=1 makes this fail)")
		}
		outside := tempRoot(t)
		os.Chmod(outside, 0o755)
		os.MkdirAll(filepath.Join(outside, "keep", "sub"), 0o755)
		os.WriteFile(filepath.Join(outside, "keep", "sub", "f.txt"), []byte("data"), 0o644)
		os.WriteFile(filepath.Join(outside, "victim.txt"), []byte("data"), 0o644)
		code := fmt.Sprintf("import shutil, os\nerrs = []\ntry:\n    shutil.rmtree(%q)\nexcept OSError as e:\n    errs.append(e)\ntry:\n    open(%q, 'w').write('x')\nexcept OSError as e:\n    errs.append(e)\nprint(errs)\nassert not errs\n",
			filepath.Join(outside, "keep"), filepath.Join(outside, "victim.txt"))
		r := runPy(t, pb, code, DefaultLimits(20*time.Second))
		if r.Passed() || !bytes.Contains(r.Output, []byte("Permission denied")) && !bytes.Contains(r.Output, []byte("Read-only file system")) {
			t.Fatalf("result %+v output %q", r, r.Output)
		}
		if b, err := os.ReadFile(filepath.Join(outside, "keep", "sub", "f.txt")); err != nil || string(b) != "data" {
			t.Fatalf("file outside was deleted: %v", err)
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "victim.txt")); string(b) != "data" {
			t.Fatalf("file outside was overwritten: %q", b)
		}
	})
}

func TestOutputCap(t *testing.T) {
	eachPy(t, func(t *testing.T, pb pyBox) {
		lim := DefaultLimits(20 * time.Second)
		lim.Output = 1000
		r := runPy(t, pb, "import sys\nsys.stdout.write('A' * 100000 + 'END')", lim)
		if !r.Passed() || !r.Truncated || len(r.Output) > 1100 || !bytes.HasSuffix(r.Output, []byte("END")) || !bytes.HasPrefix(r.Output, []byte("AAA")) {
			t.Fatalf("result %+v, %d bytes kept", r, len(r.Output))
		}
	})
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	r := box.Run(ctx, Command{Path: "/bin/sleep", Args: []string{"60"}, Dir: workdir(t, 0), Limits: DefaultLimits(time.Minute)})
	if !r.Canceled || r.Passed() || r.Reason() != "canceled" {
		t.Fatalf("result %+v", r)
	}
}

func TestRlimitEncoding(t *testing.T) {
	l := Limits{AddressSpace: 5, CPU: 1500 * time.Millisecond, FileSize: 7}
	got, err := decodeRlimits(encodeRlimits(l))
	if err != nil || len(got) != 3 || got[1].value != 2 || got[2].value != 7 {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	for _, bad := range []string{"", "1:2:3", "a:1:1:1"} {
		if _, err := decodeRlimits(bad); err == nil {
			t.Errorf("decoded %q", bad)
		}
	}
	if strconv.Itoa(UIDBase) != "61000" {
		t.Fatal("UIDBase changed")
	}
}

// TestModes runs the same checks under every isolation this machine can set
// up, so the fallbacks used on other machines are exercised too.
func TestModes(t *testing.T) {
	modes := []Isolation{{Network: true, PID: true}, {User: true, Network: true, PID: true, ReadOnly: true}, {User: true, Network: true, PID: true}, {User: true}, {}}
	if os.Geteuid() == 0 {
		modes = append(modes, Isolation{UID: true, User: true, Network: true, PID: true, Mounts: true}, Isolation{UID: true, User: true, Network: true, PID: true}, Isolation{UID: true, Network: true, PID: true}, Isolation{UID: true})
	}
	for _, iso := range modes {
		s := &Sandbox{exe: box.exe, iso: iso}
		defer s.Close()
		if err := s.probe(); err != nil {
			t.Logf("%+v unavailable here: %v", iso, err)
			continue
		}
		t.Run(fmt.Sprintf("%+v", iso), func(t *testing.T) {
			dir := tempRoot(t)
			s.Own(dir, 2)
			r := s.Run(context.Background(), Command{Path: "/bin/sh", Args: []string{"-c", "id -u; id -g; touch made"}, Dir: dir, Limits: DefaultLimits(10 * time.Second), Slot: 2})
			if iso.ReadOnly {
				// Only the run's folder can be written, and the command
				// cannot make the rest writable again.
				r := s.Run(context.Background(), Command{Path: "/bin/sh", Args: []string{"-c", "touch ../outside; grep CapEff /proc/self/status; mount -o remount,rw / && echo remounted"},
					Dir: dir, Writable: dir, Limits: DefaultLimits(10 * time.Second)})
				if !bytes.Contains(r.Output, []byte("Read-only file system")) || !bytes.Contains(r.Output, []byte("CapEff:\t0000000000000000")) || bytes.Contains(r.Output, []byte("remounted")) {
					t.Fatalf("write outside: %+v %q", r, r.Output)
				}
			}
			want := fmt.Sprintf("%d\n%d\n", os.Getuid(), os.Getgid())
			switch {
			case iso.User && (iso.UID || iso.ReadOnly):
				want = "0\n0\n"
			case iso.UID:
				want = fmt.Sprintf("%d\n%d\n", s.UID(2), s.UID(2))
			}
			if !r.Passed() || string(r.Output) != want {
				t.Fatalf("identity: %+v %q, want %q", r, r.Output, want)
			}
			r = s.Run(context.Background(), Command{
				Path:   "/bin/sh",
				Args:   []string{"-c", "echo $$ > main.pid; sleep 302 & echo $! > bg.pid; kill -TERM $$; echo survived"},
				Dir:    dir,
				Limits: DefaultLimits(10 * time.Second),
				Slot:   2,
			})
			if r.Signal != syscall.SIGTERM || r.Reason() != "killed by signal terminated" || bytes.Contains(r.Output, []byte("survived")) {
				t.Fatalf("self-kill: %+v %q", r, r.Output)
			}
			// Whatever the outcome, no straggler may outlive this subtest
			// (it would fail the next one's check).
			t.Cleanup(func() {
				for _, f := range []string{"a.pid", "b.pid"} {
					b, _ := os.ReadFile(filepath.Join(dir, f))
					if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})
			r = s.Run(context.Background(), Command{
				Path:   "/bin/sh",
				Args:   []string{"-c", "sleep 303 & echo $! > a.pid; setsid sleep 304 & echo $! > b.pid; while :; do :; done"},
				Dir:    dir,
				Limits: DefaultLimits(time.Second),
				Slot:   2,
			})
			if !r.TimedOut {
				t.Fatalf("loop: %+v", r)
			}
			time.Sleep(100 * time.Millisecond)
			out, _ := exec.Command("pgrep", "-f", "sleep 30[234]").Output()
			// Without either namespace the stragglers are ours to end
			// (the cleanup above).
			if left := len(bytes.TrimSpace(out)) > 0; left && (iso.PID || iso.UID) {
				t.Fatalf("processes survived: %s", out)
			}
		})
	}
}

// TestBinds mounts a run's folder over /root in every mode with a mount
// namespace: the run writes there, the real /root is untouched, and a mode
// without one refuses binds.
func TestBinds(t *testing.T) {
	modes := []Isolation{{User: true, Network: true, PID: true, ReadOnly: true}, {Network: true, PID: true}}
	if os.Geteuid() == 0 {
		modes = append(modes, Isolation{UID: true, User: true, Network: true, PID: true, Mounts: true})
	}
	tested := 0
	for _, iso := range modes {
		s := &Sandbox{exe: box.exe, iso: iso}
		defer s.Close()
		if err := s.probe(); err != nil {
			t.Logf("%+v unavailable here: %v", iso, err)
			continue
		}
		t.Run(fmt.Sprintf("%+v", iso), func(t *testing.T) {
			dir := tempRoot(t)
			home := filepath.Join(dir, "home")
			os.Mkdir(home, 0o755)
			s.Own(dir, 1)
			c := Command{Path: "/bin/sh", Args: []string{"-c", "echo made > /root/actor-bind-probe && cat /root/actor-bind-probe"},
				Dir: dir, Writable: dir, Limits: DefaultLimits(10 * time.Second), Slot: 1, Binds: []Bind{{Source: home, Target: "/root"}}}
			r := s.Run(context.Background(), c)
			if !iso.Binds() {
				if r.Err == nil || !strings.Contains(r.Err.Error(), "mount namespace") {
					t.Fatalf("binds without a mount namespace: %+v", r)
				}
				return
			}
			tested++
			if !r.Passed() || string(r.Output) != "made\n" {
				t.Fatalf("run: %+v %q", r, r.Output)
			}
			if b, err := os.ReadFile(filepath.Join(home, "actor-bind-probe")); err != nil || string(b) != "made\n" {
				t.Fatalf("the write did not land in the bound folder: %v", err)
			}
			if _, err := os.Stat("/root/actor-bind-probe"); err == nil {
				t.Fatal("the write landed in the real /root")
			}
			if !iso.Mounts {
				return
			}
			// A root of the run's own: a folder at a path the machine lacks
			// as the working directory, and / writable for the run only.
			pkg := filepath.Join(dir, "pkg")
			os.Mkdir(pkg, 0o755)
			os.WriteFile(filepath.Join(pkg, "mark"), []byte("m"), 0o644)
			os.Mkdir(filepath.Join(dir, "newroot"), 0o755)
			// A file bound over a file of the machine's (/etc/passwd) is
			// what the run reads there.
			file := filepath.Join(dir, "image-file")
			os.WriteFile(file, []byte("image\n"), 0o644)
			s.Own(dir, 1)
			c.Args = []string{"-c", "pwd; cat mark; echo; touch /actor-made-at-root && echo made-at-root; id -u; cat /root/actor-bind-probe; cat /etc/passwd"}
			c.Binds = append(c.Binds, Bind{Source: pkg, Target: "/actor-package"}, Bind{Source: file, Target: "/etc/passwd"})
			c.Root, c.RootDir = filepath.Join(dir, "newroot"), "/actor-package"
			r = s.Run(context.Background(), c)
			if want := "/actor-package\nm\nmade-at-root\n0\nmade\nimage\n"; !r.Passed() || string(r.Output) != want {
				t.Fatalf("own root: %+v %q, want %q", r, r.Output, want)
			}
			for _, p := range []string{"/actor-package", "/actor-made-at-root"} {
				if _, err := os.Stat(p); err == nil {
					t.Fatalf("%s appeared on the machine", p)
				}
			}
			if b, _ := os.ReadFile("/etc/passwd"); string(b) == "image\n" {
				t.Fatal("the machine's /etc/passwd was replaced")
			}
			// A file bound where the machine has none is refused: making
			// its mount point would make it on the machine.
			c.Binds[len(c.Binds)-1].Target = "/etc/actor-no-such-file"
			r = s.Run(context.Background(), c)
			if r.Passed() || !strings.Contains(string(r.Output)+fmt.Sprint(r.Err), "has no file there") {
				t.Fatalf("a file bound over nothing: %+v %q", r, r.Output)
			}
			if _, err := os.Stat("/etc/actor-no-such-file"); err == nil {
				t.Fatal("/etc/actor-no-such-file appeared on the machine")
			}
		})
	}
	if tested == 0 && os.Getenv("ACTOR_REQUIRE_SANDBOX") == "1" {
		t.Error("no mode with a mount namespace here")
	}
}

func TestWorkRootReachable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the check applies to root only")
	}
	closed := t.TempDir() // 0700
	if _, err := WorkRoot(closed); err == nil || !strings.Contains(err.Error(), "must let other users pass") {
		t.Fatalf("WorkRoot under a closed folder: %v", err)
	}
	if ents, _ := os.ReadDir(closed); len(ents) != 0 {
		t.Fatalf("left %v", ents)
	}
}
