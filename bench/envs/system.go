package envs

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ulikunitz/xz"
)

// SystemFile is a file of the benchmark image's operating system (Debian
// bullseye) that test programs read, taken from the Debian package that
// puts it there.
type SystemFile struct {
	// Path is where the image holds the file, e.g. /etc/mime.types.
	Path string
	// Deb is the package's URL and DebSHA256 its SHA-256, as in bullseye's
	// package index; Member is the file's name in the package's data.tar.
	Deb, DebSHA256, Member string
}

// SystemFiles are the image's files whose contents differ on today's
// systems in ways the recorded outputs show. The image's apt-get installs
// python3-dev and python3-tk, whose libpython3.9-stdlib depends on
// media-types: bullseye's /etc/mime.types (4.0.0), which maps .js to
// application/javascript and knows .7z and .exe (newer Debian maps .js to
// text/javascript; without the file Python maps .exe to
// application/octet-stream and knows no .7z). httpie's get_content_type
// tests recorded all three.
var SystemFiles = []SystemFile{{
	Path:      "/etc/mime.types",
	Deb:       "http://deb.debian.org/debian/pool/main/m/media-types/media-types_4.0.0_all.deb",
	DebSHA256: "f9835dcf3cdbaf163104d4e511c9c4e0f41a56822e147e57f28f749fcbf7d44c",
	Member:    "./etc/mime.types",
}}

// systemDir is the folder under DIR holding the image's system files at
// their paths (DIR/system/etc/mime.types).
const systemDir = "system"

// SystemFileIn returns where Setup put f under the environments' folder dir,
// if it did.
func SystemFileIn(dir string, f SystemFile) (string, bool) {
	p := filepath.Join(dir, systemDir, filepath.FromSlash(f.Path))
	st, err := os.Stat(p)
	return p, err == nil && st.Mode().IsRegular()
}

// fetchSystemFiles puts every SystemFiles entry missing under dir there,
// downloading its package and checking the package's hash.
func fetchSystemFiles(ctx context.Context, dir string, log io.Writer) error {
	for _, f := range SystemFiles {
		dst, ok := SystemFileIn(dir, f)
		if ok {
			continue
		}
		fmt.Fprintf(log, "image file %s: from %s\n", f.Path, f.Deb)
		deb, err := download(ctx, f.Deb)
		if err != nil {
			return fmt.Errorf("image file %s: %v", f.Path, err)
		}
		b, err := debMember(deb, f)
		if err != nil {
			return fmt.Errorf("image file %s: %v", f.Path, err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		tmp := dst + ".part"
		if err := os.WriteFile(tmp, b, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, dst); err != nil {
			return err
		}
	}
	return nil
}

// download reads url's body.
func download(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// debMember checks deb against f.DebSHA256 and returns f.Member from its
// data.tar.xz.
func debMember(deb []byte, f SystemFile) ([]byte, error) {
	sum := sha256.Sum256(deb)
	if got := hex.EncodeToString(sum[:]); got != f.DebSHA256 {
		return nil, fmt.Errorf("%s: SHA-256 %s, want %s", f.Deb, got, f.DebSHA256)
	}
	data, err := arMember(deb, "data.tar.xz")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", f.Deb, err)
	}
	xr, err := xz.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: data.tar.xz: %v", f.Deb, err)
	}
	tr := tar.NewReader(xr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: no %s in data.tar.xz", f.Deb, f.Member)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: data.tar.xz: %v", f.Deb, err)
		}
		if h.Name == f.Member && h.Typeflag == tar.TypeReg {
			return io.ReadAll(tr)
		}
	}
}

// arMember returns the named member of an ar archive (a .deb).
func arMember(ar []byte, name string) ([]byte, error) {
	r := bufio.NewReader(bytes.NewReader(ar))
	magic := make([]byte, 8)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "!<arch>\n" {
		return nil, fmt.Errorf("not an ar archive")
	}
	hdr := make([]byte, 60)
	for {
		if _, err := io.ReadFull(r, hdr); err != nil {
			return nil, fmt.Errorf("no %s in the archive", name)
		}
		size, err := strconv.ParseInt(strings.TrimSpace(string(hdr[48:58])), 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("bad ar header %q", hdr[:16])
		}
		body := make([]byte, size+size%2) // members are 2-byte aligned
		if _, err := io.ReadFull(r, body); err != nil && !(err == io.ErrUnexpectedEOF && size%2 == 1) {
			return nil, fmt.Errorf("truncated member %q", strings.TrimSpace(string(hdr[:16])))
		}
		if strings.TrimSuffix(strings.TrimSpace(string(hdr[:16])), "/") == name {
			return body[:size], nil
		}
	}
}
