package sandbox

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// capture keeps the head and the tail of a stream within a byte budget.
type capture struct {
	limit     int
	head      []byte
	tail      []byte // ring buffer, next write at pos once full
	pos       int
	truncated bool
}

func newCapture(limit int) *capture {
	if limit <= 0 {
		limit = 64 << 10
	}
	return &capture{limit: limit}
}

// readFrom consumes r until it ends or fails.
func (c *capture) readFrom(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		c.write(buf[:n])
		if err != nil {
			return
		}
	}
}

func (c *capture) write(p []byte) {
	headCap := c.limit / 4
	if len(c.head) < headCap {
		n := min(headCap-len(c.head), len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	tailCap := c.limit - headCap
	for len(p) > 0 {
		if len(c.tail) < tailCap {
			n := min(tailCap-len(c.tail), len(p))
			c.tail = append(c.tail, p[:n]...)
			p = p[n:]
			continue
		}
		c.truncated = true
		n := copy(c.tail[c.pos:], p)
		c.pos = (c.pos + n) % tailCap
		p = p[n:]
	}
}

// bytes returns the kept output, with a marker where bytes were dropped.
func (c *capture) bytes() ([]byte, bool) {
	out := append([]byte{}, c.head...)
	if c.truncated {
		out = append(out, "\n[... output truncated ...]\n"...)
	}
	out = append(out, c.tail[c.pos:]...)
	return append(out, c.tail[:c.pos]...), c.truncated
}

// countUID returns how many processes have real user id uid.
func countUID(uid int) int {
	return len(pidsOf(uid))
}

// pidsOf lists the live (not zombie) processes whose real user id is uid.
func pidsOf(uid int) []int {
	ents, _ := os.ReadDir("/proc")
	want := strconv.Itoa(uid)
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		zombie := false
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			if f[0] == "State:" {
				zombie = f[1] == "Z" || f[1] == "X"
			}
			if f[0] == "Uid:" {
				if f[1] == want && !zombie {
					pids = append(pids, pid)
				}
				break
			}
		}
	}
	return pids
}

// killUID sends SIGKILL to every process of uid until none is left (a fork
// bomb keeps forking while it is being killed), for at most 5 seconds.
func killUID(uid int) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		pids := pidsOf(uid)
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
