package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// transientError marks a download failure worth retrying from where it
// stopped: a broken connection, a server error, a refused range.
type transientError struct{ err error }

func (e transientError) Error() string { return e.err.Error() }
func (e transientError) Unwrap() error { return e.err }

// retryDelay is the pause before the n-th retry of a broken download.
var retryDelay = func(n int) time.Duration { return time.Duration(n) * time.Second }

// stallTimeout is how long a transfer may go without receiving a byte
// before it counts as broken (and is resumed).
var stallTimeout = 60 * time.Second

// stallReader re-arms a timer on every read; the timer cancels the request
// when the server stops sending.
type stallReader struct {
	r     io.Reader
	timer *time.Timer
}

func (s stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.timer.Reset(stallTimeout)
	}
	return n, err
}

// download makes dst a complete copy of f whose SHA-256 matches the index.
// Bytes go to dst+".part" first; an existing .part (left by an interrupted
// run) is resumed with an HTTP Range request, or restarted when the server
// ignores the range. A transfer that breaks off is resumed up to attempts-1
// more times; after that the .part stays for the next run. Only a verified
// file is renamed to dst; a digest mismatch deletes the .part.
func download(ctx context.Context, client *http.Client, f wheelFile, dst string, attempts int, prog meter) error {
	if ok, err := hasDigest(dst, f.Size, f.SHA256); err != nil || ok {
		return err
	}
	part := dst + ".part"
	var err error
	for i := range max(attempts, 1) {
		if i > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(retryDelay(i)):
			}
		}
		if err = fetchRange(ctx, client, f, part, prog); err == nil {
			break
		}
		var te transientError
		if ctx.Err() != nil || !errors.As(err, &te) {
			return fmt.Errorf("download %s: %w", f.Name, err)
		}
	}
	if err != nil {
		return fmt.Errorf("download %s: %w (the partial file is kept; run the command again to resume)", f.Name, err)
	}
	ok, err := hasDigest(part, f.Size, f.SHA256)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("download %s: SHA-256 differs from the index's %s; deleted the download", f.Name, f.SHA256)
	}
	return os.Rename(part, dst)
}

// fetchRange appends to part the bytes of f it does not hold yet.
func fetchRange(ctx context.Context, client *http.Client, f wheelFile, part string, prog meter) error {
	out, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	st, err := out.Stat()
	if err != nil {
		return err
	}
	off := st.Size()
	if off > f.Size {
		off = 0
	}
	if off == f.Size {
		return nil
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stall := time.AfterFunc(stallTimeout, cancel)
	defer stall.Stop()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return err
	}
	if off > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", off))
	}
	resp, err := client.Do(req)
	if err != nil {
		return transientError{err}
	}
	stall.Reset(stallTimeout)
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent && off > 0:
		if !strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", off)) {
			return fmt.Errorf("GET %s: server answered range %d- with %q", f.URL, off, resp.Header.Get("Content-Range"))
		}
	case resp.StatusCode == http.StatusOK:
		off = 0 // the server ignored the range: start over
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		if err := out.Truncate(0); err != nil {
			return err
		}
		return transientError{fmt.Errorf("GET %s: server refused to resume at byte %d; restarting", f.URL, off)}
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return transientError{fmt.Errorf("GET %s: HTTP %s", f.URL, resp.Status)}
	default:
		return fmt.Errorf("GET %s: HTTP %s", f.URL, resp.Status)
	}
	if err := out.Truncate(off); err != nil {
		return err
	}
	if _, err := out.Seek(off, io.SeekStart); err != nil {
		return err
	}
	_ = prog.Set64(off)
	n, err := io.Copy(io.MultiWriter(out, prog), io.LimitReader(stallReader{resp.Body, stall}, f.Size-off+1))
	got := off + n
	if err != nil && rctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("no data for %v", stallTimeout)
	}
	switch {
	case got > f.Size:
		if terr := out.Truncate(0); terr != nil {
			return terr
		}
		return fmt.Errorf("GET %s: server sent more than the %d bytes the index announced", f.URL, f.Size)
	case err != nil:
		return transientError{fmt.Errorf("transfer broke off at byte %d of %d: %v", got, f.Size, err)}
	case got < f.Size:
		return transientError{fmt.Errorf("transfer ended at byte %d of %d", got, f.Size)}
	}
	return nil
}

// hasDigest reports whether path exists with the given size and SHA-256. A
// file of the right size but the wrong digest is deleted.
func hasDigest(path string, size int64, sum string) (bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && st.Size() != size) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	got, err := SHA256File(path)
	if err != nil {
		return false, err
	}
	if got != sum {
		return false, os.Remove(path)
	}
	return true, nil
}
