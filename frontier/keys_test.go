package frontier

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/status"
)

// longURL is a URL of n bytes on host.
func longURL(host string, n int, tail string) string {
	s := "http://" + host + "/"
	return s + strings.Repeat("a", n-len(s)-len(tail)) + tail
}

func TestKeyPart(t *testing.T) {
	s256 := strings.Repeat("x", maxKeyPart)
	tests := []struct {
		name   string
		in     string
		hashed bool
	}{
		{"empty", "", false},
		{"short", "http://a.test/", false},
		{"at the bound", s256, false},
		{"one over", s256 + "y", true},
		{"100 KB", strings.Repeat("z", 100_000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := keyPart(nil, tt.in)
			if hashed(got) != tt.hashed {
				t.Errorf("hashed(keyPart(%d bytes)) = %v, want %v", len(tt.in), hashed(got), tt.hashed)
			}
			switch {
			case !tt.hashed && string(got) != tt.in:
				t.Errorf("keyPart(%d bytes) = %q, want the string itself", len(tt.in), got)
			case tt.hashed && (len(got) != hashedPart || string(got[:maxKeyPart]) != tt.in[:maxKeyPart]):
				t.Errorf("keyPart(%d bytes) has %d bytes, want %d starting with the string's first %d",
					len(tt.in), len(got), hashedPart, maxKeyPart)
			}
		})
	}
	if a, b := keyPart(nil, s256+"1"), keyPart(nil, s256+"2"); string(a) == string(b) {
		t.Error("two long strings with one prefix have one key part")
	}
	// Keys of short strings are those of format 1.
	if got := string(urlKey("http://a.test/1")); got != "u/http://a.test/1" {
		t.Errorf("urlKey = %q, want the format 1 key", got)
	}
	if got, want := string(hostPrefix("a.test")), "q/\x06a.test"; got != want {
		t.Errorf("hostPrefix = %q, want %q", got, want)
	}
}

// TestLongURLs runs URLs, hosts, digests and metadata keys of up to 70 KB through every
// method and a reopen (a record holds a URL and its Via: two of 50 KB).
func TestLongURLs(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	longHost := strings.Repeat("h", 1000) + ".test"
	big := longURL("a.test", 50_000, "/1")
	twin := longURL("a.test", 50_000, "/2") // same first 256 bytes
	onLongHost := URL{URL: "http://" + longHost + "/x", Host: longHost, Via: big, Seed: big}
	tests := []struct {
		name string
		u    URL
		want bool
	}{
		{"50 KB URL", URL{URL: big, Host: "a.test", Via: big}, true},
		{"again", URL{URL: big, Host: "a.test"}, false},
		{"same prefix", URL{URL: twin, Host: "a.test"}, true},
		{"long host", onLongHost, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.Add(tt.u)
			if err != nil || got != tt.want {
				t.Errorf("Add = %v, %v; want %v, nil", got, err, tt.want)
			}
		})
	}
	rejected := longURL("b.test", 70_000, "/r")
	if first, err := f.Reject(URL{URL: rejected, Host: "b.test"}, "out-of-scope"); err != nil || !first {
		t.Errorf("Reject(70 KB URL) = %v, %v; want true, nil", first, err)
	}
	digest := "sha1:" + strings.Repeat("D", 500)
	date := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := f.StoreDigest(digest, big, date); err != nil {
		t.Fatal(err)
	}
	metaKeys := map[string]string{
		"promoted/" + big:   "1",
		"promoted/" + twin:  "2",
		"promoted/short":    "3",
		"other/" + big[:10]: "4",
	}
	for k, v := range metaKeys {
		if err := f.PutMeta(k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.PutMeta("promoted/"+twin, []byte("2b")); err != nil {
		t.Fatal(err)
	}
	metaKeys["promoted/"+twin] = "2b"

	// Claim everything, retrying the twin once.
	var claimed []string
	for c := tryClaim(t, f); c != nil; c = tryClaim(t, f) {
		claimed = append(claimed, c.URL.URL)
		if c.URL.URL == twin && c.URL.Attempts == 0 {
			if again, err := f.Retry(c, time.Time{}); err != nil || !again {
				t.Fatalf("Retry = %v, %v", again, err)
			}
			continue
		}
		mustDone(t, f, c)
	}
	if len(claimed) != 4 {
		t.Errorf("claimed %d URLs, want 4 (3 and a retry)", len(claimed))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	f = openT(t, Config{Dir: dir})
	if diff := cmp.Diff(Stats{Done: 3, Rejected: 1}, f.Stats()); diff != "" {
		t.Errorf("Stats after reopen (-want +got):\n%s", diff)
	}
	got := map[string]status.State{}
	for _, e := range collect(t, f) {
		got[e.URL.URL] = e.State
	}
	want := map[string]status.State{big: status.Done, twin: status.Done, onLongHost.URL: status.Done, rejected: status.Rejected}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Each after reopen (-want +got):\n%s", diff)
	}
	for _, u := range []string{big, twin, onLongHost.URL} {
		if added, err := f.Add(URL{URL: u, Host: "a.test"}); err != nil || added {
			t.Errorf("Add(%d-byte URL) after reopen = %v, %v; want false (seen)", len(u), added, err)
		}
	}
	if uri, d, ok, err := f.LookupDigest(digest); err != nil || !ok || uri != big || !d.Equal(date) {
		t.Errorf("LookupDigest(long digest) = %d-byte URI, %v, %v, %v", len(uri), d, ok, err)
	}
	if _, _, ok, err := f.LookupDigest(digest + "x"); err != nil || ok {
		t.Errorf("LookupDigest(other long digest) = %v, %v; want not found", ok, err)
	}
	for k, v := range metaKeys {
		if got, ok, err := f.Meta(k); err != nil || !ok || string(got) != v {
			t.Errorf("Meta(%d-byte key) = %q, %v, %v; want %q", len(k), got, ok, err, v)
		}
	}
	scans := []struct {
		prefix string
		want   []string
	}{
		{"promoted/", []string{"promoted/" + big, "promoted/" + twin, "promoted/short"}},
		{"promoted/" + big[:300], []string{"promoted/" + big, "promoted/" + twin}},
		{"promoted/" + big, []string{"promoted/" + big}},
		{"other/", []string{"other/" + big[:10]}},
	}
	for i, sc := range scans {
		t.Run("ScanMeta "+strconv.Itoa(i), func(t *testing.T) {
			var got []string
			if err := f.ScanMeta(sc.prefix, func(k string, _ []byte) error {
				got = append(got, k)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			// Keys past maxKeyPart bytes come in the order of their hashes.
			want := slices.Clone(sc.want)
			slices.Sort(want)
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ScanMeta(%d-byte prefix) (-want +got):\n%s", len(sc.prefix), diff)
			}
		})
	}
}

func TestAddBatchPerURLErrors(t *testing.T) {
	f := openT(t, Config{})
	huge := longURL("a.test", MaxRecordSize+1, "/huge")
	batch := []URL{
		u("a.test", "/1"),
		{Host: "a.test"}, // empty URL
		{URL: huge, Host: "a.test"},
		{URL: "http://a.test/\xff\xfe", Host: "a.test\x00"}, // not UTF-8: stored as bytes
		{URL: longURL("a.test", 75_000, "/v"), Host: "a.test", Via: longURL("a.test", 50_000, "/via")},
		u("a.test", "/1"),
	}
	res, err := f.AddBatch(batch)
	if err != nil {
		t.Fatal(err)
	}
	wantNew := []bool{true, false, false, true, true, false}
	wantErr := []bool{false, true, true, false, false, false}
	for i, r := range res {
		if r.New != wantNew[i] || (r.Err != nil) != wantErr[i] {
			t.Errorf("result %d = %+v, want New %v, error %v", i, r, wantNew[i], wantErr[i])
		}
		if r.Err != nil && !errors.Is(r.Err, ErrURL) {
			t.Errorf("result %d error = %v, want ErrURL", i, r.Err)
		}
	}
	if q := f.Stats().Queued; q != 3 {
		t.Errorf("Stats.Queued = %d, want 3", q)
	}
	if _, err := f.Reject(URL{URL: huge}, "x"); !errors.Is(err, ErrURL) {
		t.Errorf("Reject(huge) = %v, want ErrURL", err)
	}
	if _, err := f.Reject(URL{}, "x"); !errors.Is(err, ErrURL) {
		t.Errorf("Reject(empty) = %v, want ErrURL", err)
	}
	if err := f.StoreDigest("sha1:X", huge, time.Now()); !errors.Is(err, ErrURL) {
		t.Errorf("StoreDigest(huge URI) = %v, want ErrURL", err)
	}
	if err := f.PutMeta("k", make([]byte, MaxRecordSize)); !errors.Is(err, ErrMeta) {
		t.Errorf("PutMeta(huge value) = %v, want ErrMeta", err)
	}
	for c := tryClaim(t, f); c != nil; c = tryClaim(t, f) {
		mustDone(t, f, c)
	}
	if s := f.Stats(); s.Done != 3 {
		t.Errorf("Stats = %+v, want 3 done", s)
	}
}

// TestKeyTaken forges the (never seen) case of two strings with one hashed key: the second is
// refused as its own failure and the first keeps its entry.
func TestKeyTaken(t *testing.T) {
	dir := t.TempDir()
	f := openT(t, Config{Dir: dir})
	a, b := longURL("a.test", 1000, "/a"), longURL("a.test", 1000, "/b")
	// b's record under a's key.
	val := (&record{URL: URL{URL: b, Host: "a.test"}}).encode()
	if err := f.db.Update(func(txn *badger.Txn) error {
		if err := txn.SetEntry(badger.NewEntry(urlKey(a), val).WithMeta(stDone)); err != nil {
			return err
		}
		// Metadata key "mb" stored under key "ma"'s hashed key.
		ka, kb := "m"+a, "m"+b
		return txn.SetEntry(badger.NewEntry(metaKey(ka), encodeLong(kb, []byte("v"))).WithMeta(longKey))
	}); err != nil {
		t.Fatal(err)
	}
	// Reopened, as the entries were written behind the frontier's back (its key filter
	// learns the stored keys on Open).
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openT(t, Config{Dir: dir})
	if _, err := f.Add(URL{URL: a, Host: "a.test"}); !errors.Is(err, ErrURL) {
		t.Errorf("Add(URL whose key is taken) = %v, want ErrURL", err)
	}
	if _, err := f.Reject(URL{URL: a, Host: "a.test"}, "x"); !errors.Is(err, ErrURL) {
		t.Errorf("Reject(URL whose key is taken) = %v, want ErrURL", err)
	}
	if err := f.PutMeta("m"+a, []byte("w")); !errors.Is(err, ErrMeta) {
		t.Errorf("PutMeta(key taken) = %v, want ErrMeta", err)
	}
	if v, ok, err := f.Meta("m" + a); err != nil || ok {
		t.Errorf("Meta(key taken) = %q, %v, %v; want not found", v, ok, err)
	}
	var keys []string
	if err := f.ScanMeta("m", func(k string, _ []byte) error {
		keys = append(keys, k)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m" + b}, keys); diff != "" {
		t.Errorf("ScanMeta: the entry's own key (-want +got):\n%s", diff)
	}
}

// TestMigrateFormat1 writes long keys as format 1 did (verbatim) and checks that a reopen
// rewrites them and keeps every entry, and leaves short keys alone.
func TestMigrateFormat1(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	longHost := strings.Repeat("h", 300) + ".test"
	done := longURL("a.test", 5000, "/done")
	queued := "http://" + longHost + "/q"
	short := "http://a.test/short"
	rec := func(u, host string, seq uint64) []byte {
		return (&record{URL: URL{URL: u, Host: host}, Seq: seq}).encode()
	}
	legacyQueue := func(host string, seq uint64) []byte {
		b := append([]byte(prefixQueue), byte(len(host)&0x7f|0x80), byte(len(host)>>7))
		b = append(b, host...)
		b = append(b, 0x80, 0, 0, 0, 0, 0, 0, 0) // priority 0
		return append(b, 0, 0, 0, 0, 0, 0, 0, byte(seq))
	}
	if _, _, err := parseQueueKey(legacyQueue(longHost, 7)); err != nil {
		t.Fatalf("legacy queue key: %v", err)
	}
	err = f.db.Update(func(txn *badger.Txn) error {
		for _, e := range []*badger.Entry{
			badger.NewEntry([]byte(prefixURL+done), rec(done, "a.test", 1)).WithMeta(stDone),
			badger.NewEntry([]byte(prefixURL+queued), rec(queued, longHost, 7)).WithMeta(stQueued),
			badger.NewEntry(legacyQueue(longHost, 7), rec(queued, longHost, 7)),
			badger.NewEntry([]byte(prefixURL+short), rec(short, "a.test", 8)).WithMeta(stRejected),
			badger.NewEntry([]byte(prefixMeta+"k/"+done), []byte("meta")),
			badger.NewEntry([]byte(prefixDigest+"sha1:"+done), encodeDigest(done, time.Unix(5, 0))),
		} {
			if err := txn.SetEntry(e); err != nil {
				return err
			}
		}
		return txn.Delete(formatKey)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	f = openT(t, Config{Dir: dir})
	if diff := cmp.Diff(Stats{Queued: 1, Done: 1, Rejected: 1}, f.Stats()); diff != "" {
		t.Errorf("Stats after migration (-want +got):\n%s", diff)
	}
	err = f.db.View(func(txn *badger.Txn) error {
		opt := badger.DefaultIteratorOptions
		opt.PrefetchValues = false
		it := txn.NewIterator(opt)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if k := it.Item().Key(); len(k) > len(prefixQueue)+2+hashedPart+16 {
				t.Errorf("key of %d bytes left after migration: %.80q", len(k), k)
			}
		}
		_, err := txn.Get([]byte(prefixURL + short))
		return err
	})
	if err != nil {
		t.Errorf("short key after migration: %v", err)
	}
	if added, err := f.Add(URL{URL: done, Host: "a.test"}); err != nil || added {
		t.Errorf("Add(done long URL) = %v, %v; want false (seen)", added, err)
	}
	c := tryClaim(t, f)
	if c == nil || c.URL.URL != queued {
		var got string
		if c != nil {
			got = c.URL.URL
		}
		t.Fatalf("claim = %.80q, want the long host's URL %.80q", got, queued)
	}
	mustDone(t, f, c)
	if v, ok, err := f.Meta("k/" + done); err != nil || !ok || string(v) != "meta" {
		t.Errorf("Meta(long key) = %q, %v, %v", v, ok, err)
	}
	if uri, _, ok, err := f.LookupDigest("sha1:" + done); err != nil || !ok || uri != done {
		t.Errorf("LookupDigest(long digest) = %v, %v", ok, err)
	}
	if n := len(collect(t, f)); n != 3 {
		t.Errorf("Each: %d entries, want 3", n)
	}
}
