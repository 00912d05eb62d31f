// Package sandbox runs untrusted generated code: each run gets its own
// process group, a wall-clock limit that kills the whole process tree,
// rlimits on address space, CPU time, processes and file size, a private
// network namespace (no network) and PID namespace where the machine allows
// them, and protection of the files outside the run's folder: started as
// root, every worker slot runs as its own unprivileged user id (shown as root
// inside a user namespace when the interpreter is reachable by other users);
// otherwise the run gets a user and mount namespace in which everything but
// its folder is read-only and no capability is left. Combined stdout and
// stderr are captured up to a cap.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Limits bounds one run.
type Limits struct {
	// Timeout is the wall-clock limit; the whole process tree is killed at
	// it. Zero means none.
	Timeout time.Duration
	// AddressSpace is RLIMIT_AS in bytes (0 = none).
	AddressSpace uint64
	// CPU is RLIMIT_CPU, rounded up to whole seconds (0 = none).
	CPU time.Duration
	// Processes is RLIMIT_NPROC: processes and threads the run may have
	// (0 = none).
	Processes uint64
	// FileSize is RLIMIT_FSIZE in bytes (0 = none).
	FileSize uint64
	// Output is how many bytes of combined stdout and stderr are kept.
	Output int
}

// DefaultLimits returns the limits used for benchmark runs: the given wall
// clock, 4 GiB of address space, 64 processes, 256 MiB files and 64 KiB of
// output. The CPU limit is only a backstop behind the wall clock: what one
// process may spend within it on every core, plus a second, so that a
// candidate which spins is always stopped by the timeout (as the
// benchmarks' own harnesses do) and a multi-threaded one that finishes in
// time is never stopped by CPU time.
func DefaultLimits(timeout time.Duration) Limits {
	return Limits{
		Timeout:      timeout,
		AddressSpace: 4 << 30,
		CPU:          timeout*time.Duration(runtime.NumCPU()) + time.Second,
		Processes:    64,
		FileSize:     256 << 20,
		Output:       64 << 10,
	}
}

// Isolation says which protections a Sandbox could set up here.
type Isolation struct {
	// UID: runs as a dedicated unprivileged user id per slot (root only),
	// which makes the process limit effective and files of other users
	// (root's included) read-only to the candidate.
	UID bool
	// User: runs in a user namespace. With UID, the slot's user id appears
	// inside as root (uid and gid 0), as in the benchmarks' Docker images,
	// while outside it stays unprivileged; without UID (not started as
	// root) the caller's own id is mapped.
	User bool
	// Network: runs in a new network namespace without interfaces.
	Network bool
	// PID: runs in a new PID namespace, so every process of the run dies
	// with its first one.
	PID bool
	// ReadOnly: runs in a mount namespace where everything but the
	// command's Writable folder is read-only (used without UID, which
	// protects files on its own).
	ReadOnly bool
	// Mounts: runs in a mount namespace of its own (with UID and User),
	// where the command's Binds are mounted.
	Mounts bool
}

// Binds reports whether commands may give Binds: the run has a mount
// namespace of its own.
func (i Isolation) Binds() bool { return i.Mounts || i.ReadOnly }

// Bind mounts the folder Source over the existing folder Target for one
// run, inside its mount namespace (e.g. a workspace folder over /root); in
// a root of the run's own, Source may also be a file, mounted over the
// file Target (e.g. the benchmark image's /etc/mime.types).
type Bind struct {
	Source, Target string
}

// ProtectsFiles reports whether candidates cannot modify files outside the
// folders given to them.
func (i Isolation) ProtectsFiles() bool { return i.UID || i.ReadOnly }

// Command is one program to run in the sandbox.
type Command struct {
	// Path is the absolute path of the program; Args its arguments
	// (without argv[0]).
	Path string
	Args []string
	// Dir is the working directory; Env the complete environment.
	Dir string
	Env []string
	// Limits bounds the run.
	Limits Limits
	// Slot is the worker's index (0..); with UID isolation each slot runs
	// as its own user id.
	Slot int
	// Writable is the folder the command may change under ReadOnly
	// isolation (default Dir).
	Writable string
	// Binds are mounted for this run only (Isolation.Binds must hold).
	// Dir must not lie under a Target.
	Binds []Bind
	// Root, a folder inside Writable, is where the run's own root file
	// system is built (Isolation.Mounts must hold): a tmpfs holding the
	// machine's top-level folders, bound in, and the Binds, whose targets
	// need not exist on the machine (e.g. /package); the command then runs
	// chrooted there, in RootDir (default /).
	Root, RootDir string
}

// Result is what happened to a run.
type Result struct {
	// Exit is the exit status, or -1 when the process was killed by a
	// signal or did not start.
	Exit int
	// Signal is the signal that ended the process, or 0.
	Signal syscall.Signal
	// TimedOut reports that the wall-clock limit killed the run.
	TimedOut bool
	// Canceled reports that the context ended the run.
	Canceled bool
	// Duration is the wall time of the run.
	Duration time.Duration
	// Output is the captured stdout and stderr; Truncated says bytes were
	// dropped from its middle.
	Output    []byte
	Truncated bool
	// Err is set when the command could not be started.
	Err error
}

// UIDBase is the first user id given to slots under UID isolation.
const UIDBase = 61000

var errNoUID = errors.New("sandbox: no free sandbox user id")

// Sandbox runs commands under the isolation this machine allows.
type Sandbox struct {
	exe      string
	iso      Isolation
	warnings []string
	copyDir  string // folder of a world-executable copy of exe, if made

	mu   sync.Mutex
	uids map[int]*os.File // slot -> lock file of its reserved user id
}

// New probes which isolation works here and returns a Sandbox using the
// strongest. reach lists files and folders the commands must open (an
// interpreter and its installation): when started as root and one of them
// is inside a folder other users cannot enter, candidates run under their
// user id with the right to read everything instead of appearing as root in
// a user namespace. Every protection that could not be set up is described
// in Warnings.
func New(reach ...string) (*Sandbox, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: cannot find own executable: %v", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return nil, fmt.Errorf("sandbox: %v", err)
	}
	s := &Sandbox{exe: exe}
	var tries []Isolation
	if os.Geteuid() == 0 {
		// A sandbox user must be able to reach the helper executable before
		// its capabilities take effect.
		if !worldExecutable(exe) {
			if err := s.copyExe(); err != nil {
				return nil, err
			}
		}
		tries = []Isolation{
			{UID: true, User: true, Network: true, PID: true, Mounts: true},
			{UID: true, User: true, Network: true, PID: true},
			{UID: true, Network: true, PID: true},
			{UID: true, Network: true},
			{UID: true},
			{Network: true, PID: true},
			{},
		}
		for _, p := range reach {
			if !worldReadable(p) {
				tries = tries[2:]
				s.warnings = append(s.warnings, fmt.Sprintf("%s is not reachable by other users: candidates run as an unprivileged user id, not as root in a user namespace, so tests that expect to run as root fail", p))
				break
			}
		}
	} else {
		tries = []Isolation{
			{User: true, Network: true, PID: true, ReadOnly: true},
			{User: true, Network: true, PID: true},
			{User: true, Network: true},
			{},
		}
	}
	var lastErr error
	for _, iso := range tries {
		s.iso = iso
		if lastErr = s.probe(); lastErr == nil {
			break
		}
		s.warnings = append(s.warnings, fmt.Sprintf("isolation %+v unavailable: %v", iso, lastErr))
	}
	if lastErr != nil {
		return nil, fmt.Errorf("sandbox: cannot start %s even without isolation: %v", exe, lastErr)
	}
	if !s.iso.Network {
		s.warnings = append(s.warnings, "no network namespace could be created: candidates can open network connections")
	}
	if !s.iso.PID {
		s.warnings = append(s.warnings, "no PID namespace could be created: processes that leave the process group can outlive a run unless they run under a sandbox user id")
	}
	if !s.iso.ProtectsFiles() {
		s.warnings = append(s.warnings, "neither a sandbox user id (needs root) nor a read-only mount namespace: candidates can change files this user owns")
	}
	return s, nil
}

// Close releases the reserved user ids and removes the helper copy New
// may have made.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	for slot, f := range s.uids {
		f.Close()
		delete(s.uids, slot)
	}
	s.mu.Unlock()
	if s.copyDir == "" {
		return nil
	}
	return os.RemoveAll(s.copyDir)
}

// Isolation returns the protections in force.
func (s *Sandbox) Isolation() Isolation { return s.iso }

// Warnings describes the protections that could not be set up.
func (s *Sandbox) Warnings() []string { return s.warnings }

// UID returns the user id slot runs as, or -1 without UID isolation (or
// when no user id is free). Each slot reserves its own id, with a lock that
// other processes' sandboxes respect, so two harnesses on one machine never
// share (and kill) each other's processes.
func (s *Sandbox) UID(slot int) int {
	if !s.iso.UID {
		return -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uids == nil {
		s.uids = map[int]*os.File{}
	}
	if f, ok := s.uids[slot]; ok {
		return uidOfLock(f)
	}
	f, err := reserveUID()
	if err != nil {
		return -1
	}
	s.uids[slot] = f
	return uidOfLock(f)
}

// WorkRoot creates a folder under parent (the system's temporary folder
// when empty) for runs' working directories. The sandbox users can pass
// through it (mode 0711) but not list it; parent and the folders above it
// must let others pass as well.
func WorkRoot(parent string) (string, error) {
	dir, err := os.MkdirTemp(parent, "actor-bench-")
	if err != nil {
		return "", err
	}
	if os.Geteuid() == 0 && !worldExecutable(filepath.Dir(dir)) {
		os.RemoveAll(dir)
		return "", fmt.Errorf("sandbox: %s and the folders above it must let other users pass (o+x) for the sandbox users", filepath.Dir(dir))
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// Own makes dir and everything in it belong to slot's user id, so the run
// can write there; without UID isolation it does nothing.
func (s *Sandbox) Own(dir string, slot int) error {
	if !s.iso.UID {
		return nil
	}
	uid := s.UID(slot)
	if uid < 0 {
		return errNoUID
	}
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
}

// probe starts the helper in probe mode under the current isolation.
func (s *Sandbox) probe() error {
	dir, err := os.MkdirTemp("", "actor-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := s.Own(dir, 0); err != nil {
		return err
	}
	c := Command{Path: probeArg, Dir: dir, Limits: DefaultLimits(20 * time.Second)}
	if s.iso.Binds() {
		sub := filepath.Join(dir, "bind")
		if err := os.Mkdir(sub, 0o755); err != nil {
			return err
		}
		c.Binds = []Bind{{Source: sub, Target: sub}}
	}
	if s.iso.Mounts {
		c.Root = filepath.Join(dir, "root")
		if err := os.Mkdir(c.Root, 0o755); err != nil {
			return err
		}
		c.Binds = append(c.Binds, Bind{Source: dir, Target: "/actor-probe"})
		c.RootDir = "/actor-probe"
	}
	r := s.Run(context.Background(), c)
	if r.Err != nil {
		return r.Err
	}
	if r.Exit != 0 {
		return fmt.Errorf("probe exited with %d: %s", r.Exit, r.Output)
	}
	return nil
}

// Run runs c and returns what happened; it returns when every process of
// the run is gone or, without PID or UID isolation, after a short grace
// period.
func (s *Sandbox) Run(ctx context.Context, c Command) Result {
	if s.iso.UID && s.UID(c.Slot) < 0 {
		return Result{Exit: -1, Err: errNoUID}
	}
	lim := c.Limits
	if !s.iso.UID && lim.Processes > 0 {
		// The limit counts all processes of the real user id.
		lim.Processes += uint64(countUID(os.Getuid()))
	}
	env := append(append([]string{}, c.Env...), limitsEnv+"="+encodeRlimits(lim))
	if len(c.Binds) > 0 || c.Root != "" {
		if !s.iso.Binds() || c.Root != "" && !s.iso.Mounts {
			return Result{Exit: -1, Err: errors.New("sandbox: binds and a root of the run's own need a mount namespace, unavailable here")}
		}
		b, err := json.Marshal(mountPlan{Binds: c.Binds, Root: c.Root, Dir: c.RootDir})
		if err != nil {
			return Result{Exit: -1, Err: err}
		}
		env = append(env, mountsEnv+"="+string(b))
	}
	if s.iso.ReadOnly {
		w := c.Writable
		if w == "" {
			w = c.Dir
		}
		w, err := filepath.Abs(w)
		if err != nil {
			return Result{Exit: -1, Err: err}
		}
		env = append(env, writableEnv+"="+w)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{Exit: -1, Err: err}
	}
	defer pr.Close()
	sr, sw, err := os.Pipe()
	if err != nil {
		pw.Close()
		return Result{Exit: -1, Err: err}
	}
	defer sr.Close()
	cmd := &exec.Cmd{
		Path:        s.exe,
		Args:        append([]string{helperArg0, c.Path}, c.Args...),
		Env:         env,
		Dir:         c.Dir,
		Stdout:      pw,
		Stderr:      pw,
		ExtraFiles:  []*os.File{sw}, // statusFD
		SysProcAttr: s.attr(c.Slot),
	}
	start := time.Now()
	// The parent-death signal follows the thread that forked the child;
	// Go keeps unlocked threads alive, so locking only around Start is
	// enough.
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	pw.Close()
	sw.Close()
	if err != nil {
		return Result{Exit: -1, Err: err}
	}
	out := newCapture(lim.Output)
	copied := make(chan struct{})
	go func() {
		out.readFrom(pr)
		close(copied)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var timer <-chan time.Time
	if lim.Timeout > 0 {
		t := time.NewTimer(lim.Timeout)
		defer t.Stop()
		timer = t.C
	}
	res := Result{}
	select {
	case err = <-waited:
	case <-timer:
		res.TimedOut = true
		s.kill(cmd.Process.Pid, c.Slot)
		err = <-waited
	case <-ctx.Done():
		res.Canceled = true
		s.kill(cmd.Process.Pid, c.Slot)
		err = <-waited
	}
	res.Duration = time.Since(start)
	s.killGroup(cmd.Process.Pid, c.Slot) // stragglers of a finished run
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
		pr.Close() // a process outside our reach still holds the pipe
		<-copied
	}
	res.Output, res.Truncated = out.bytes()
	res.Exit = -1
	var ee *exec.ExitError
	switch {
	case err == nil:
		res.Exit = 0
	case errors.As(err, &ee):
		ws := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			res.Signal = ws.Signal()
		} else {
			res.Exit = ws.ExitStatus()
		}
	default:
		res.Err = err
		return res
	}
	// A helper that was a PID namespace's init reports the command's end.
	sr.SetReadDeadline(time.Now().Add(time.Second))
	var kind string
	var n int
	if b, _ := io.ReadAll(sr); len(b) > 0 {
		if _, err := fmt.Sscanf(string(b), "%s %d", &kind, &n); err == nil {
			switch kind {
			case "exit":
				res.Exit, res.Signal = n, 0
			case "signal":
				res.Exit, res.Signal = -1, syscall.Signal(n)
			}
		}
	}
	return res
}

// attr returns the process attributes for slot under the current isolation.
func (s *Sandbox) attr(slot int) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if s.iso.Network {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	if s.iso.PID {
		a.Cloneflags |= syscall.CLONE_NEWPID
	}
	if s.iso.Binds() {
		a.Cloneflags |= syscall.CLONE_NEWNS
	}
	switch {
	case s.iso.UID && s.iso.User:
		uid := s.UID(slot)
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		// Become the mapped root: until then the child is unmapped.
		a.Credential = &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: true}
	case s.iso.UID:
		uid := uint32(s.UID(slot))
		a.Credential = &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}
		// Read and search access everywhere (interpreters under /root),
		// no write access beyond what the sandbox user owns.
		a.AmbientCaps = []uintptr{capDacReadSearch}
	case s.iso.User:
		// The caller's own ids, mapped to themselves; under ReadOnly mapped
		// to root, which keeps the capabilities the helper needs to set up
		// the mounts through its exec (it drops them all afterwards).
		uid, gid := os.Getuid(), os.Getgid()
		in, ingid := uid, gid
		if s.iso.ReadOnly {
			in, ingid = 0, 0
		}
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: in, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: ingid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
	return a
}

// capDacReadSearch is CAP_DAC_READ_SEARCH.
const capDacReadSearch = 2

// kill ends every process of a run whose first process pid has not been
// reaped yet: that process (and with it its PID namespace) and killGroup.
func (s *Sandbox) kill(pid, slot int) {
	syscall.Kill(pid, syscall.SIGKILL)
	s.killGroup(pid, slot)
}

// killGroup kills the run's process group (its id stays reserved while a
// member lives, so it is safe after the first process was reaped) and,
// under UID isolation, every process of the slot's user id.
func (s *Sandbox) killGroup(pgid, slot int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
	if uid := s.UID(slot); uid >= 0 {
		killUID(uid)
	}
}
