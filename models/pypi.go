package models

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// PyPIIndex is the base URL of PyPI's simple repository API (PEP 503/691).
// Pull asks it, in its JSON form, for a release's wheel URL, size and
// SHA-256. (The /pypi/NAME/VERSION/json endpoint is not used: it answers 404
// through some registry proxies, while the simple API is what pip itself uses.)
const PyPIIndex = "https://pypi.org/simple"

// wheelFile is one downloadable wheel as the index describes it.
type wheelFile struct {
	Name   string
	URL    string
	Size   int64
	SHA256 string
}

// errUnreachable marks a failure to talk to the index at all (DNS, refused
// connection, TLS, proxy), as opposed to an answer that says no; Pull falls
// back to pip on it.
var errUnreachable = errors.New("index unreachable")

// simpleProject is the PEP 691 JSON page of one project.
type simpleProject struct {
	Files []struct {
		Filename string            `json:"filename"`
		URL      string            `json:"url"`
		Size     int64             `json:"size"`
		Hashes   map[string]string `json:"hashes"`
	} `json:"files"`
}

var normRe = regexp.MustCompile(`[-_.]+`)

// normalize is the PEP 503 project-name normalisation.
func normalize(name string) string {
	return strings.ToLower(normRe.ReplaceAllString(name, "-"))
}

// findWheel asks the index at base for the wheel of w.Project==w.Version.
func findWheel(ctx context.Context, client *http.Client, base string, w Wheel) (wheelFile, error) {
	page := strings.TrimSuffix(base, "/") + "/" + normalize(w.Project) + "/"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, page, nil)
	if err != nil {
		return wheelFile{}, err
	}
	req.Header.Set("Accept", "application/vnd.pypi.simple.v1+json")
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return wheelFile{}, ctx.Err()
		}
		return wheelFile{}, fmt.Errorf("%w: %v", errUnreachable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return wheelFile{}, fmt.Errorf("index %s: HTTP %s", page, resp.Status)
	}
	return parseIndex(page, io.LimitReader(resp.Body, 64<<20), w)
}

// parseIndex picks the wheel of w from the PEP 691 JSON project page read
// from body; page is the page's URL, against which file URLs are resolved.
func parseIndex(page string, body io.Reader, w Wheel) (wheelFile, error) {
	var p simpleProject
	if err := json.NewDecoder(body).Decode(&p); err != nil {
		return wheelFile{}, fmt.Errorf("index %s: bad JSON (%v)", page, err)
	}
	pageURL, err := url.Parse(page)
	if err != nil {
		return wheelFile{}, err
	}
	for _, f := range p.Files {
		if !wheelMatches(f.Filename, w) {
			continue
		}
		sum := strings.ToLower(f.Hashes["sha256"])
		if _, err := hex.DecodeString(sum); err != nil || len(sum) != 64 {
			return wheelFile{}, fmt.Errorf("index %s: %s has no valid sha256 digest", page, f.Filename)
		}
		if f.Size <= 0 {
			return wheelFile{}, fmt.Errorf("index %s: %s has no size", page, f.Filename)
		}
		u, err := pageURL.Parse(f.URL)
		if err != nil {
			return wheelFile{}, fmt.Errorf("index %s: bad URL for %s (%v)", page, f.Filename, err)
		}
		return wheelFile{Name: f.Filename, URL: u.String(), Size: f.Size, SHA256: sum}, nil
	}
	return wheelFile{}, fmt.Errorf("index %s: no wheel for %s==%s", page, w.Project, w.Version)
}

// wheelMatches reports whether filename is a wheel of w's project at
// exactly w's version (the registry's wheels are all py3-none-any).
func wheelMatches(filename string, w Wheel) bool {
	stem, ok := strings.CutSuffix(filename, ".whl")
	if !ok {
		return false
	}
	parts := strings.Split(stem, "-")
	if len(parts) != 5 && len(parts) != 6 {
		return false
	}
	return normalize(parts[0]) == normalize(w.Project) && parts[1] == w.Version
}
