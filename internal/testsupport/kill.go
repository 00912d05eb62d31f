package testsupport

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// CountLines is the number of newline-ended lines in the file at path (0
// when it does not exist).
func CountLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

// KillWhen starts cmd and kills it with SIGKILL as soon as file holds at
// least lines lines: the crash that resume tests recover from. It fails
// the test when the child ends first or writes nothing within two minutes
// (the child's stderr is shown).
func KillWhen(t testing.TB, cmd *exec.Cmd, file string, lines int) {
	t.Helper()
	var stderr bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
	for CountLines(file) < lines {
		select {
		case err := <-exited:
			t.Fatalf("the child ended (%v) before %s had %d lines: %s", err, file, lines, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the child wrote fewer than %d lines to %s in time: %s", lines, file, stderr.String())
		case <-time.After(2 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err == nil {
		t.Fatal("the child was not killed")
	}
}
