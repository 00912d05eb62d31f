package models

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// payload is deterministic, not compressible-looking test content.
func payload(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func publish(t *testing.T, fi *fakeIndex, data []byte, digest string) wheelFile {
	t.Helper()
	fi.add("demo-pkg", "demo_pkg-1.0-py3-none-any.whl", data, digest)
	f, err := findWheel(context.Background(), http.DefaultClient, fi.index(), Wheel{Project: "demo-pkg", Version: "1.0"})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDownloadInterruptedThenResumed(t *testing.T) {
	fi := newFakeIndex(t)
	data := payload(300_000)
	f := publish(t, fi, data, "")
	dir := t.TempDir()
	dst := filepath.Join(dir, f.Name)

	fi.breakAfter = 120_000
	err := download(context.Background(), http.DefaultClient, f, dst, 1, silent{})
	if err == nil || !strings.Contains(err.Error(), "run the command again to resume") {
		t.Fatalf("interrupted download: err = %v, want a resumable error", err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Fatalf("final name exists after an interrupted download: %v", err)
	}
	// The server's write buffer may swallow the last few KB it read.
	st, err := os.Stat(dst + ".part")
	if err != nil || st.Size() < 100_000 || st.Size() > 120_000 {
		t.Fatalf("partial file: %v, want 100000..120000 bytes kept", err)
	}
	kept := st.Size()

	if err := download(context.Background(), http.DefaultClient, f, dst, 1, silent{}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("resumed file differs from the original (%v)", err)
	}
	if want := []string{"", fmt.Sprintf("bytes=%d-", kept)}; strings.Join(fi.ranges, "|") != strings.Join(want, "|") {
		t.Fatalf("Range headers %q, want %q", fi.ranges, want)
	}
	noLeftovers(t, dir, f.Name)
}

func TestDownloadRetriesWithinOneCall(t *testing.T) {
	defer func(d func(int) time.Duration) { retryDelay = d }(retryDelay)
	retryDelay = func(int) time.Duration { return 0 }
	fi := newFakeIndex(t)
	data := payload(50_000)
	f := publish(t, fi, data, "")
	dst := filepath.Join(t.TempDir(), f.Name)
	fi.breakAfter = 30_000
	if err := download(context.Background(), http.DefaultClient, f, dst, 2, silent{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, data) {
		t.Fatal("retried download differs from the original")
	}
	if len(fi.ranges) != 2 || !strings.HasPrefix(fi.ranges[1], "bytes=") || fi.ranges[1] == "bytes=0-" {
		t.Fatalf("Range headers %q, want a plain request then a resume", fi.ranges)
	}
}

func TestDownloadRestartsWhenServerIgnoresRange(t *testing.T) {
	fi := newFakeIndex(t)
	data := payload(10_000)
	f := publish(t, fi, data, "")
	dir := t.TempDir()
	dst := filepath.Join(dir, f.Name)
	// A stale partial file of wrong bytes: the server answers the range
	// request with a full 200, so the download must start over instead of
	// appending.
	writeFile(t, dir, f.Name+".part", bytes.Repeat([]byte{'z'}, 4_000))
	fi.noRange = true
	if err := download(context.Background(), http.DefaultClient, f, dst, 1, silent{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, data) {
		t.Fatal("restarted download differs from the original")
	}
	if fi.ranges[0] != "bytes=4000-" {
		t.Fatalf("Range %q, want bytes=4000-", fi.ranges[0])
	}
}

func TestDownloadDigestMismatchLeavesNothing(t *testing.T) {
	fi := newFakeIndex(t)
	f := publish(t, fi, payload(20_000), strings.Repeat("ab", 32))
	dir := t.TempDir()
	err := download(context.Background(), http.DefaultClient, f, filepath.Join(dir, f.Name), 3, silent{})
	if err == nil || !strings.Contains(err.Error(), "SHA-256 differs") {
		t.Fatalf("err = %v, want a SHA-256 mismatch", err)
	}
	noLeftovers(t, dir)
}

func TestDownloadKeepsVerifiedFile(t *testing.T) {
	fi := newFakeIndex(t)
	data := payload(5_000)
	f := publish(t, fi, data, "")
	dst := writeFile(t, t.TempDir(), f.Name, data)
	if err := download(context.Background(), http.DefaultClient, f, dst, 1, silent{}); err != nil {
		t.Fatal(err)
	}
	if fi.fileHits != 0 {
		t.Fatalf("a verified file was fetched again (%d requests)", fi.fileHits)
	}
}

func TestDownloadHTTPErrorIsPermanent(t *testing.T) {
	fi := newFakeIndex(t)
	f := publish(t, fi, payload(100), "")
	f.URL = fi.URL + "/files/missing.whl"
	err := download(context.Background(), http.DefaultClient, f, filepath.Join(t.TempDir(), f.Name), 3, silent{})
	if err == nil || !strings.Contains(err.Error(), "404") || strings.Contains(err.Error(), "resume") {
		t.Fatalf("err = %v, want a plain 404 error", err)
	}
}

func TestDownloadStalledTransferIsResumable(t *testing.T) {
	defer func(d time.Duration) { stallTimeout = d }(stallTimeout)
	stallTimeout = 200 * time.Millisecond
	data := payload(10_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		_, _ = w.Write(data[:3_000])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // then say nothing more
	}))
	defer srv.Close()
	f := wheelFile{Name: "s.whl", URL: srv.URL + "/s.whl", Size: int64(len(data)), SHA256: sum(data)}
	dst := filepath.Join(t.TempDir(), f.Name)
	start := time.Now()
	err := download(context.Background(), http.DefaultClient, f, dst, 1, silent{})
	if err == nil || !strings.Contains(err.Error(), "no data for 200ms") || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("err = %v, want a stall error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("stall detected only after %v", d)
	}
	if st, err := os.Stat(dst + ".part"); err != nil || st.Size() != 3_000 {
		t.Fatalf("partial file after stall: %v %v", st, err)
	}
}
