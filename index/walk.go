// Package index turns a repository into retrieval candidates: it walks the
// source files (honouring .gitignore and include/exclude globs), splits them
// into Split-and-Aggregate blocks or RepoCoder windows, and keeps candidates,
// file hashes and embeddings in an incremental SQLite store.
package index

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"actor/index/gitignore"
)

// DefaultMaxSize is the size above which a file is skipped as generated or
// data rather than source (1 MiB).
const DefaultMaxSize = 1 << 20

// WalkOptions chooses the files Walk yields.
type WalkOptions struct {
	// Include lists globs a file must match (any of them); empty means all
	// files. A glob without '/' matches the file name, one with '/' the path
	// from the repository root (gitignore wildmatch rules, '**' allowed).
	Include []string
	// Exclude lists globs, matched like Include, that drop a file or a whole
	// folder.
	Exclude []string
	// MaxSize skips larger files; 0 means DefaultMaxSize, negative no limit.
	MaxSize int64
	// NoGitignore turns off .gitignore handling.
	NoGitignore bool
	// Hidden also walks files and folders whose names start with '.';
	// by default they are skipped, as the authors' glob("**/*.py") does
	// (so .eggs, .tox, .venv stay out).
	Hidden bool
	// Skip is told about every file or folder left out for a reason other
	// than the rules above (binary, too large, not UTF-8, unreadable,
	// symlink loop, symlinked folder); nil ignores them.
	Skip func(rel string, reason error)
}

// File is one source file of the repository.
type File struct {
	Path string // slash-separated, relative to the repository root
	Data []byte
}

// Reasons a file is skipped, reported through WalkOptions.Skip wrapped with
// details; test them with errors.Is.
var (
	ErrBinary     = errors.New("binary file")
	ErrTooLarge   = errors.New("file too large")
	ErrNotUTF8    = errors.New("not valid UTF-8")
	ErrSymlinkDir = errors.New("symlink to a folder, not followed (as git)")
)

// Walk calls fn for every file under root that passes the options, in
// lexical path order. Problems with single files or folders are reported to
// opt.Skip and never stop the walk; an error from fn stops it and is
// returned, as is an unreadable root.
func Walk(root string, opt WalkOptions, fn func(File) error) error {
	info, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("repository %s: %w", root, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("repository %s: not a folder", root)
	}
	w := &walker{root: root, opt: opt, fn: fn}
	if w.opt.MaxSize == 0 {
		w.opt.MaxSize = DefaultMaxSize
	}
	if w.opt.Skip == nil {
		w.opt.Skip = func(string, error) {}
	}
	m := &gitignore.Matcher{}
	if !opt.NoGitignore {
		if data, err := os.ReadFile(filepath.Join(root, ".git", "info", "exclude")); err == nil {
			m = m.With(gitignore.Parse("", data))
		}
	}
	return w.dir("", m)
}

type walker struct {
	root string
	opt  WalkOptions
	fn   func(File) error
}

// dir walks the folder rel (slash-separated, "" for the root) with the
// ignore rules m of its parent.
func (w *walker) dir(rel string, m *gitignore.Matcher) error {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	if !w.opt.NoGitignore {
		data, err := os.ReadFile(filepath.Join(abs, ".gitignore"))
		if err == nil {
			m = m.With(gitignore.Parse(rel, data))
		} else if !errors.Is(err, fs.ErrNotExist) {
			w.opt.Skip(path.Join(rel, ".gitignore"), err)
		}
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		w.opt.Skip(rel, err)
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		child := path.Join(rel, name)
		if (e.IsDir() && name == ".git") || (!w.opt.Hidden && strings.HasPrefix(name, ".")) {
			continue
		}
		symlink := e.Type()&fs.ModeSymlink != 0
		var info fs.FileInfo
		if symlink {
			// Stat follows the link; a loop or a dangling link fails here.
			info, err = os.Stat(filepath.Join(abs, name))
		} else {
			info, err = e.Info()
		}
		if err != nil {
			w.opt.Skip(child, err)
			continue
		}
		switch {
		case info.IsDir():
			if m.Ignored(child, true) || matchAny(w.opt.Exclude, child) {
				continue
			}
			if symlink {
				w.opt.Skip(child, ErrSymlinkDir)
				continue
			}
			if err := w.dir(child, m); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			if m.Ignored(child, false) || matchAny(w.opt.Exclude, child) {
				continue
			}
			if len(w.opt.Include) > 0 && !matchAny(w.opt.Include, child) {
				continue
			}
			if err := w.file(child, filepath.Join(abs, name), info.Size()); err != nil {
				return err
			}
		}
	}
	return nil
}

// file reads one candidate file and hands it to fn unless it is too large,
// binary, not UTF-8 or unreadable.
func (w *walker) file(rel, abs string, size int64) error {
	if w.opt.MaxSize > 0 && size > w.opt.MaxSize {
		w.opt.Skip(rel, fmt.Errorf("%w: %d bytes > %d", ErrTooLarge, size, w.opt.MaxSize))
		return nil
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		w.opt.Skip(rel, err)
		return nil
	}
	if w.opt.MaxSize > 0 && int64(len(data)) > w.opt.MaxSize {
		w.opt.Skip(rel, fmt.Errorf("%w: %d bytes > %d", ErrTooLarge, len(data), w.opt.MaxSize))
		return nil
	}
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		w.opt.Skip(rel, ErrBinary)
		return nil
	}
	if !utf8.Valid(data) {
		w.opt.Skip(rel, ErrNotUTF8)
		return nil
	}
	return w.fn(File{Path: rel, Data: data})
}

// matchAny reports whether rel matches one of the globs: a glob without '/'
// is matched against the last path element, one with '/' against the whole
// path (a leading '/' is dropped).
func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if len(g) > 0 && g[0] == '/' {
			g = g[1:]
		}
		target := rel
		if !strings.Contains(g, "/") {
			target = path.Base(rel)
		}
		if gitignore.Match(g, target) {
			return true
		}
	}
	return false
}
