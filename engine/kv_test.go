package engine

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"actor/internal/testsupport"
)

// Keys and values saved from one session and placed at the same position
// after the same prefix in another are the ones it would compute: the
// prefill after them gives the logits of a plain prefill and computes only
// the tokens after the placed ones.
func TestPlaceSavedKVIsExactInPlace(t *testing.T) {
	eachTiny(t, tinyCases, func(t *testing.T, r *tinyRef, m *Model) {
		ids := r.IDs
		src := newSession(t, m)
		want, err := src.Prefill(ids)
		if err != nil {
			t.Fatal(err)
		}
		kv, err := src.Save(3, 8)
		if err != nil {
			t.Fatal(err)
		}
		defer kv.Close()
		if !slices.Equal(kv.Tokens(), ids[3:8]) || kv.Bytes() <= 0 {
			t.Fatalf("saved %v (%d bytes), want tokens %v", kv.Tokens(), kv.Bytes(), ids[3:8])
		}
		dst := newSession(t, m)
		if _, err := dst.Prefill(ids[:3]); err != nil {
			t.Fatal(err)
		}
		if err := dst.Place(kv); err != nil {
			t.Fatal(err)
		}
		c0 := dst.Computed()
		got, err := dst.Prefill(ids)
		if err != nil {
			t.Fatal(err)
		}
		if n := dst.Computed() - c0; n != len(ids)-8 {
			t.Errorf("the prefill after the placed tokens computed %d tokens, want %d", n, len(ids)-8)
		}
		if d := testsupport.MaxAbsDiff(got.Logits, want.Logits); d > 1e-5 {
			t.Errorf("logits after placed keys and values differ from a plain prefill by %g", d)
		}
	})
}

func TestSavePlaceRejects(t *testing.T) {
	r := loadRef(t, "llama_mha")
	m := loadTiny(t, r, false) // 64 positions
	s := newSession(t, m)
	if _, err := s.Prefill(r.IDs[:10]); err != nil {
		t.Fatal(err)
	}
	for _, span := range [][2]int{{-1, 3}, {4, 4}, {5, 11}} {
		if _, err := s.Save(span[0], span[1]); err == nil || !strings.Contains(err.Error(), "the session holds 10 tokens") {
			t.Errorf("Save(%d, %d): %v", span[0], span[1], err)
		}
	}
	kv, err := s.Save(0, 10)
	if err != nil {
		t.Fatal(err)
	}
	full := newSession(t, m)
	if _, err := full.Prefill(append(slices.Repeat([]int32{r.IDs[0]}, 60), r.IDs[1])); err != nil {
		t.Fatal(err)
	}
	if err := full.Place(kv); err == nil || !strings.Contains(err.Error(), "exceed the context") {
		t.Errorf("placing 10 tokens after 61 of 64: %v", err)
	}
	kv.Close()
	if err := s.Place(kv); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("placing closed keys and values: %v", err)
	}
}

// Keys and values written to a file and read back place exactly as the
// originals: the prefill after them gives the same logits bit for bit.
// Bad files are refused with an error.
func TestKVFileRoundTrip(t *testing.T) {
	eachTiny(t, tinyCases, func(t *testing.T, r *tinyRef, m *Model) {
		ids := r.IDs
		src := newSession(t, m)
		if _, err := src.Prefill(ids); err != nil {
			t.Fatal(err)
		}
		kv, err := src.Save(3, 8)
		if err != nil {
			t.Fatal(err)
		}
		defer kv.Close()
		var buf bytes.Buffer
		if _, err := kv.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		file := buf.Bytes()
		back, err := m.ReadKV(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		defer back.Close()
		if !slices.Equal(back.Tokens(), kv.Tokens()) || back.Bytes() != kv.Bytes() {
			t.Fatalf("read back %v (%d bytes), wrote %v (%d bytes)", back.Tokens(), back.Bytes(), kv.Tokens(), kv.Bytes())
		}
		logits := func(k *KV) []float32 {
			s := newSession(t, m)
			if _, err := s.Prefill(ids[:2]); err != nil {
				t.Fatal(err)
			}
			if err := s.Place(k); err != nil {
				t.Fatal(err)
			}
			p, err := s.Prefill(append(append(slices.Clone(ids[:2]), ids[3:8]...), ids[8:]...))
			if err != nil {
				t.Fatal(err)
			}
			return p.Logits
		}
		if d := testsupport.MaxAbsDiff(logits(back), logits(kv)); d != 0 {
			t.Errorf("read-back keys and values give logits %g away from the originals'", d)
		}
		for name, bad := range map[string][]byte{"magic": append([]byte("NOTAKV01"), file[8:]...), "truncated": file[:len(file)-3], "empty": nil} {
			if k, err := m.ReadKV(bytes.NewReader(bad)); err == nil {
				k.Close()
				t.Errorf("%s file read without error", name)
			}
		}
	})
}
