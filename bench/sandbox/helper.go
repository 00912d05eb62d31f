package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The sandbox starts its own executable under helperArg0 with the limits in
// limitsEnv; the helper sets the resource limits on itself and then execs
// the real command, so the limits hold from the command's first
// instruction. Go cannot set rlimits for a child between fork and exec.
const (
	helperArg0 = "actor-sandbox-helper"
	limitsEnv  = "ACTOR_SANDBOX_LIMITS"
	// writableEnv names the folder that stays writable when the helper
	// makes the rest of the file system read-only.
	writableEnv = "ACTOR_SANDBOX_WRITABLE"
	// mountsEnv holds the run's mountPlan as JSON.
	mountsEnv = "ACTOR_SANDBOX_MOUNTS"
	probeArg  = "--probe"
	// statusFD is the pipe on which a helper running as a PID namespace's
	// init reports how the command ended.
	statusFD = 3
)

func init() {
	if len(os.Args) >= 2 && os.Args[0] == helperArg0 {
		if v, ok := os.LookupEnv(limitsEnv); ok {
			helperMain(v)
		}
	}
}

// helperMain applies the encoded limits and execs os.Args[1:]; it never
// returns.
func helperMain(encoded string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(127)
	}
	lim, err := decodeRlimits(encoded)
	if err != nil {
		fail(err)
	}
	var plan mountPlan
	if v := os.Getenv(mountsEnv); v != "" {
		if err := json.Unmarshal([]byte(v), &plan); err != nil {
			fail(fmt.Errorf("bad %s: %v", mountsEnv, err))
		}
		if plan.Root != "" {
			err = ownRoot(plan)
		} else {
			err = bindMounts(plan.Binds)
		}
		if err != nil {
			fail(err)
		}
	}
	if dir := os.Getenv(writableEnv); dir != "" {
		if err := readOnlyExcept(dir, plan.Binds); err != nil {
			fail(err)
		}
		// The command must not be able to undo the read-only mounts.
		if err := dropCapabilities(); err != nil {
			fail(err)
		}
	}
	for _, l := range lim {
		rl := unix.Rlimit{Cur: l.value, Max: l.value}
		if l.resource == unix.RLIMIT_CPU {
			rl.Max = l.value + 1 // SIGXCPU first, SIGKILL one second later
		}
		if err := unix.Setrlimit(l.resource, &rl); err != nil {
			fail(fmt.Errorf("setrlimit %d: %v", l.resource, err))
		}
	}
	if os.Args[1] == probeArg {
		os.Exit(0)
	}
	env := make([]string, 0, len(os.Environ()))
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, limitsEnv+"=") && !strings.HasPrefix(e, writableEnv+"=") && !strings.HasPrefix(e, mountsEnv+"=") {
			env = append(env, e)
		}
	}
	if os.Getpid() == 1 {
		runInit(os.Args[1], os.Args[1:], env)
	}
	syscall.CloseOnExec(statusFD)
	fail(syscall.Exec(os.Args[1], os.Args[1:], env))
}

// runInit runs the command as a child of the helper, which stays the PID
// namespace's init: the kernel ignores signals without a handler sent to an
// init, so the command itself must not be one. It reports the command's end
// on statusFD and exits with it; the namespace's other processes die with
// the helper. It never returns.
func runInit(path string, argv, env []string) {
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(127)
	}
	status := os.NewFile(statusFD, "status")
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR || (err == nil && wpid != pid) {
			continue
		}
		if err != nil {
			os.Exit(127)
		}
		if ws.Signaled() {
			fmt.Fprintf(status, "signal %d\n", int(ws.Signal()))
			os.Exit(128 + int(ws.Signal()))
		}
		fmt.Fprintf(status, "exit %d\n", ws.ExitStatus())
		os.Exit(ws.ExitStatus())
	}
}

// bindMounts makes the helper's mount namespace private and mounts each
// bind's source over its target; the working directory is entered again.
func bindMounts(binds []Bind) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %v", err)
	}
	for _, b := range binds {
		if err := unix.Mount(b.Source, b.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s over %s: %v", b.Source, b.Target, err)
		}
	}
	return unix.Chdir(cwd)
}

// readOnlyExcept makes every mount of the helper's (private) mount
// namespace read-only, except dir, which is bind-mounted onto itself and
// stays writable, and the binds' targets, which stay writable as well; the
// working directory is entered again so that it refers to the writable
// mount.
func readOnlyExcept(dir string, binds []Bind) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	rw := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	type step struct {
		what string
		do   func() error
	}
	steps := []step{
		{"make mounts private", func() error { return unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") }},
		{"bind " + dir, func() error { return unix.Mount(dir, dir, "", unix.MS_BIND|unix.MS_REC, "") }},
		{"make / read-only", func() error { return unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, ro) }},
		{"make " + dir + " writable", func() error { return unix.MountSetattr(unix.AT_FDCWD, dir, unix.AT_RECURSIVE, rw) }},
	}
	for _, b := range binds {
		target := b.Target
		steps = append(steps, step{"make " + target + " writable", func() error { return unix.MountSetattr(unix.AT_FDCWD, target, unix.AT_RECURSIVE, rw) }})
	}
	steps = append(steps, step{"enter " + cwd, func() error { return unix.Chdir(cwd) }})
	for _, s := range steps {
		if err := s.do(); err != nil {
			return fmt.Errorf("%s: %v", s.what, err)
		}
	}
	return nil
}

// dropCapabilities empties the bounding set and the current capability
// sets, so neither the helper nor what it executes (even as uid 0 of its
// user namespace) holds any capability.
func dropCapabilities() error {
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d: %v", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear capabilities: %v", err)
	}
	return nil
}

type rlimit struct {
	resource int
	value    uint64
}

// rlimitOrder names the resources in the order of the encoding.
var rlimitOrder = []int{unix.RLIMIT_AS, unix.RLIMIT_CPU, unix.RLIMIT_NPROC, unix.RLIMIT_FSIZE}

// encodeRlimits writes address space, CPU seconds, processes and file size
// (0 = unlimited) as a colon-separated list.
func encodeRlimits(l Limits) string {
	cpu := uint64(0)
	if l.CPU > 0 {
		cpu = uint64((l.CPU + 999_999_999) / 1_000_000_000)
	}
	vals := []uint64{l.AddressSpace, cpu, l.Processes, l.FileSize}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(parts, ":")
}

// decodeRlimits reads encodeRlimits' format, leaving out zero values.
func decodeRlimits(s string) ([]rlimit, error) {
	parts := strings.Split(s, ":")
	if len(parts) != len(rlimitOrder) {
		return nil, fmt.Errorf("bad %s %q", limitsEnv, s)
	}
	var out []rlimit
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad %s %q", limitsEnv, s)
		}
		if v > 0 {
			out = append(out, rlimit{rlimitOrder[i], v})
		}
	}
	return out, nil
}
