package index

import (
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// schemaVersion is bumped whenever the tables change shape; an index with
// another version is refused with a request to rebuild it.
const schemaVersion = "1"

const schema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
	id INTEGER PRIMARY KEY,
	path TEXT NOT NULL UNIQUE,
	hash BLOB NOT NULL,
	size INTEGER NOT NULL);
CREATE TABLE candidates(
	id INTEGER PRIMARY KEY,
	file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
	start_line INTEGER NOT NULL,
	end_line INTEGER NOT NULL,
	text_hash BLOB NOT NULL,
	text TEXT NOT NULL);
CREATE INDEX candidates_file ON candidates(file_id);
CREATE INDEX candidates_hash ON candidates(text_hash);
CREATE TABLE encoders(
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	dim INTEGER NOT NULL);
CREATE TABLE embeddings(
	encoder_id INTEGER NOT NULL REFERENCES encoders(id) ON DELETE CASCADE,
	text_hash BLOB NOT NULL,
	vec BLOB NOT NULL,
	PRIMARY KEY(encoder_id, text_hash)) WITHOUT ROWID;
`

// Store is a repository index on disk: files with their content hashes,
// their candidates, and embeddings keyed by (encoder, candidate text hash),
// so identical blocks are embedded once and unchanged blocks of an edited
// file keep their vectors.
type Store struct {
	db   *sql.DB
	path string
}

// Open opens the index database at path, creating it (and its folder) when
// missing. A file that is not an actor index, a damaged one, or one of
// another schema version is refused with an error naming the file.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	dsn := "file:" + path + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.init(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// init creates the schema in an empty database or checks the version of an
// existing one.
func (s *Store) init() error {
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'`).Scan(&n); err != nil {
		return s.wrap("open", err)
	}
	if n == 0 {
		var tables int
		if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&tables); err != nil {
			return s.wrap("open", err)
		}
		if tables > 0 {
			return fmt.Errorf("index %s: an SQLite database but not an actor index (no meta table)", s.path)
		}
		return s.tx("create schema", func(tx *sql.Tx) error {
			if _, err := tx.Exec(schema); err != nil {
				return err
			}
			_, err := tx.Exec(`INSERT INTO meta(key, value) VALUES('schema', ?)`, schemaVersion)
			return err
		})
	}
	v, err := s.Meta("schema")
	if err != nil {
		return err
	}
	if v != schemaVersion {
		return fmt.Errorf("index %s: schema version %q, this actor reads %q: delete the file to rebuild", s.path, v, schemaVersion)
	}
	return nil
}

// Path returns the database file name.
func (s *Store) Path() string { return s.path }

// Close releases the database.
func (s *Store) Close() error { return s.db.Close() }

// wrap names the database and the failed operation in err, with a hint to
// rebuild when SQLite reports a damaged or foreign file.
func (s *Store) wrap(op string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") ||
		strings.Contains(msg, "corrupt") {
		return fmt.Errorf("index %s is corrupt (%s: %v): delete it and run actor index again", s.path, op, err)
	}
	return fmt.Errorf("index %s: %s: %w", s.path, op, err)
}

// tx runs fn in one transaction, committed when fn succeeds.
func (s *Store) tx(op string, fn func(*sql.Tx) error) error {
	tx, err := s.db.Begin()
	if err != nil {
		return s.wrap(op, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return s.wrap(op, err)
	}
	return nil
}

// Meta returns the value stored under key, "" when absent.
func (s *Store) Meta(key string) (string, error) {
	var v string
	err := s.db.QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", s.wrap("read meta", err)
	}
	return v, nil
}

// SetMeta stores value under key.
func (s *Store) SetMeta(key, value string) error {
	return s.tx("write meta", func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
}

// FileHashes returns the content hash of every indexed file by path.
func (s *Store) FileHashes() (map[string][]byte, error) {
	rows, err := s.db.Query(`SELECT path, hash FROM files`)
	if err != nil {
		return nil, s.wrap("read files", err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var p string
		var h []byte
		if err := rows.Scan(&p, &h); err != nil {
			return nil, s.wrap("read files", err)
		}
		out[p] = h
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("read files", err)
	}
	return out, nil
}

// FileEntry is one file's new state: its hash and candidates.
type FileEntry struct {
	Path       string
	Hash       []byte
	Size       int64
	Candidates []Candidate
}

// PutFiles replaces the given files and their candidates in one
// transaction.
func (s *Store) PutFiles(files []FileEntry) error {
	return s.tx("store files", func(tx *sql.Tx) error {
		del, err := tx.Prepare(`DELETE FROM files WHERE path = ?`)
		if err != nil {
			return err
		}
		defer del.Close()
		insF, err := tx.Prepare(`INSERT INTO files(path, hash, size) VALUES(?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insF.Close()
		insC, err := tx.Prepare(`INSERT INTO candidates(file_id, start_line, end_line, text_hash, text) VALUES(?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insC.Close()
		for _, f := range files {
			if _, err := del.Exec(f.Path); err != nil {
				return err
			}
			res, err := insF.Exec(f.Path, f.Hash, f.Size)
			if err != nil {
				return err
			}
			id, err := res.LastInsertId()
			if err != nil {
				return err
			}
			for _, c := range f.Candidates {
				if _, err := insC.Exec(id, c.Start, c.End, TextHash(c.Text), c.Text); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// RemoveFiles deletes files (and their candidates) by path, or every file
// when all is true.
func (s *Store) RemoveFiles(paths []string, all bool) error {
	return s.tx("remove files", func(tx *sql.Tx) error {
		if all {
			_, err := tx.Exec(`DELETE FROM files`)
			return err
		}
		st, err := tx.Prepare(`DELETE FROM files WHERE path = ?`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, p := range paths {
			if _, err := st.Exec(p); err != nil {
				return err
			}
		}
		return nil
	})
}

// DropOrphanEmbeddings deletes embeddings whose text no longer occurs in
// any candidate.
func (s *Store) DropOrphanEmbeddings() error {
	return s.tx("drop stale embeddings", func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM embeddings WHERE text_hash NOT IN (SELECT text_hash FROM candidates)`)
		return err
	})
}

// TextHash is the key of a candidate text in the embeddings table.
func TextHash(text string) []byte {
	h := sha256.Sum256([]byte(text))
	return h[:]
}

// EncoderID returns the row id of the named encoder, registering it with
// its dimension on first use; a known name with another dimension is an
// error.
func (s *Store) EncoderID(name string, dim int) (int64, error) {
	var id int64
	err := s.tx("register encoder", func(tx *sql.Tx) error {
		var have int
		err := tx.QueryRow(`SELECT id, dim FROM encoders WHERE name = ?`, name).Scan(&id, &have)
		if errors.Is(err, sql.ErrNoRows) {
			res, err := tx.Exec(`INSERT INTO encoders(name, dim) VALUES(?, ?)`, name, dim)
			if err != nil {
				return err
			}
			id, err = res.LastInsertId()
			return err
		}
		if err != nil {
			return err
		}
		if have != dim {
			return fmt.Errorf("encoder %q was stored with dimension %d, now gives %d", name, have, dim)
		}
		return nil
	})
	return id, err
}

// Text is a distinct candidate text and its hash.
type Text struct {
	Hash []byte
	Text string
}

// MissingEmbeddings returns the distinct candidate texts that have no
// embedding for the encoder yet.
func (s *Store) MissingEmbeddings(encoderID int64) ([]Text, error) {
	rows, err := s.db.Query(`SELECT c.text_hash, min(c.text) FROM candidates c
		WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.encoder_id = ? AND e.text_hash = c.text_hash)
		GROUP BY c.text_hash`, encoderID)
	if err != nil {
		return nil, s.wrap("find texts to embed", err)
	}
	defer rows.Close()
	var out []Text
	for rows.Next() {
		var t Text
		if err := rows.Scan(&t.Hash, &t.Text); err != nil {
			return nil, s.wrap("find texts to embed", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("find texts to embed", err)
	}
	return out, nil
}

// PutEmbeddings stores one vector per text in one transaction.
func (s *Store) PutEmbeddings(encoderID int64, texts []Text, vecs [][]float32) error {
	if len(texts) != len(vecs) {
		return fmt.Errorf("index %s: %d texts but %d vectors", s.path, len(texts), len(vecs))
	}
	return s.tx("store embeddings", func(tx *sql.Tx) error {
		st, err := tx.Prepare(`INSERT OR REPLACE INTO embeddings(encoder_id, text_hash, vec) VALUES(?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i, t := range texts {
			if _, err := st.Exec(encoderID, t.Hash, encodeVec(vecs[i])); err != nil {
				return err
			}
		}
		return nil
	})
}

// encodeVec stores a vector as little-endian float32s.
func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Corpus is what retrieval needs from an index: the candidates, with
// identical texts from different places kept once (first by path and line),
// and optionally their vectors as one row-major len(Candidates)×Dim matrix.
type Corpus struct {
	Candidates []Candidate
	Vectors    []float32
	Dim        int
}

// Load reads the corpus; with a non-empty encoder name it also reads that
// encoder's vectors and fails when the encoder is unknown or any candidate
// lacks a vector.
func (s *Store) Load(encoder string) (*Corpus, error) {
	c := &Corpus{}
	var encID int64 = -1
	if encoder != "" {
		err := s.db.QueryRow(`SELECT id, dim FROM encoders WHERE name = ?`, encoder).Scan(&encID, &c.Dim)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("index %s has no embeddings from encoder %q: run actor index with it first", s.path, encoder)
		}
		if err != nil {
			return nil, s.wrap("read encoder", err)
		}
	}
	rows, err := s.db.Query(`SELECT f.path, c.start_line, c.end_line, c.text, c.text_hash, e.vec
		FROM candidates c JOIN files f ON f.id = c.file_id
		LEFT JOIN embeddings e ON e.encoder_id = ? AND e.text_hash = c.text_hash
		ORDER BY f.path, c.start_line, c.id`, encID)
	if err != nil {
		return nil, s.wrap("load candidates", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	missing := 0
	for rows.Next() {
		var cand Candidate
		var hash, vec []byte
		if err := rows.Scan(&cand.Path, &cand.Start, &cand.End, &cand.Text, &hash, &vec); err != nil {
			return nil, s.wrap("load candidates", err)
		}
		if seen[string(hash)] {
			continue
		}
		seen[string(hash)] = true
		c.Candidates = append(c.Candidates, cand)
		if encoder == "" {
			continue
		}
		if vec == nil {
			missing++
			continue
		}
		if len(vec) != 4*c.Dim {
			return nil, fmt.Errorf("index %s is corrupt: a %d-byte vector for encoder %q of dimension %d", s.path, len(vec), encoder, c.Dim)
		}
		for i := 0; i < len(vec); i += 4 {
			c.Vectors = append(c.Vectors, math.Float32frombits(binary.LittleEndian.Uint32(vec[i:])))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("load candidates", err)
	}
	if missing > 0 {
		return nil, fmt.Errorf("index %s: %d candidates have no embedding from %q: run actor index with it to finish", s.path, missing, encoder)
	}
	return c, nil
}

// Counts reports how many files, candidates and embeddings the index holds.
func (s *Store) Counts() (files, candidates, embeddings int, err error) {
	err = s.db.QueryRow(`SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM candidates), (SELECT count(*) FROM embeddings)`).
		Scan(&files, &candidates, &embeddings)
	if err != nil {
		err = s.wrap("count", err)
	}
	return
}
