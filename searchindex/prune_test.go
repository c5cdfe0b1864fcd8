package searchindex

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/zinctest"
)

// exactIDs returns the ids of every document of index once there are want of them (documents
// deleted take a moment to go), or after 10 s.
func exactIDs(t *testing.T, s *zinctest.Server, index string, want int) []string {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = ids(t, s, index, "*", 0)
		if len(got) == want || time.Now().After(deadline) {
			return got
		}
	}
}

func TestPurgeVerdict(t *testing.T) {
	for _, tt := range []struct {
		status       int
		err          error
		del, failed  bool
		reasonPrefix string
	}{
		{status: 200, reasonPrefix: "200 OK"},
		{status: 204, reasonPrefix: "204"},
		{status: 301, del: true, reasonPrefix: "301 Moved Permanently"},
		{status: 302, del: true, reasonPrefix: "302"},
		{status: 304, del: true, reasonPrefix: "304"}, // the reference: every 3xx
		{status: 308, del: true, reasonPrefix: "308"},
		{status: 401, del: true, reasonPrefix: "401"},
		{status: 404, del: true, reasonPrefix: "404 Not Found"},
		{status: 410, del: true, reasonPrefix: "410"},
		{status: 429, del: true, reasonPrefix: "429"}, // a 4xx, as the reference says
		{status: 499, del: true, reasonPrefix: "499"},
		{status: 500, reasonPrefix: "500"},
		{status: 503, reasonPrefix: "503"},
		{status: 599, reasonPrefix: "599"},
		{status: 100, reasonPrefix: "100"},
		{err: errors.New("connection refused"), failed: true, reasonPrefix: "connection refused"},
	} {
		t.Run(fmt.Sprint(tt.status, tt.err), func(t *testing.T) {
			v := PurgeVerdict(tt.status, tt.err)
			if v.Delete != tt.del || v.Failed != tt.failed || !strings.HasPrefix(v.Reason, tt.reasonPrefix) {
				t.Errorf("PurgeVerdict(%d, %v) = %+v, want delete %v, failed %v, reason %q...", tt.status, tt.err, v, tt.del, tt.failed, tt.reasonPrefix)
			}
		})
	}
}

// TestDocumentsPages: more documents than a page, every one listed once with its url.
func TestDocumentsPages(t *testing.T) {
	s := zinc(t)
	dir, index := t.TempDir(), indexName(t)
	n := PageSize*2 + 17
	var lines []string
	for i := range n {
		lines = append(lines, doc(fmt.Sprint("d", i), fmt.Sprintf("http://x.test/%d", i), "paged"))
	}
	writeDocs(t, dir, lines...)
	if _, err := ship(t, testConfig(s, index), dir); err != nil {
		t.Fatal(err)
	}
	ids(t, s, index, "*", n)
	sink, err := New(testConfig(s, index))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := sink.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != n {
		t.Fatalf("Documents listed %d documents, want %d", len(docs), n)
	}
	for _, d := range docs {
		if want := "http://x.test/" + strings.TrimPrefix(d.ID, "d"); d.URL != want {
			t.Fatalf("document %s: url %q, want %q", d.ID, d.URL, want)
		}
	}
}

// TestPrune: only the selected documents are decided about; a dry run deletes nothing; the
// real run deletes those Decide says go, and the index no longer has them.
func TestPrune(t *testing.T) {
	s := zinc(t)
	dir, index := t.TempDir(), indexName(t)
	writeDocs(t, dir, doc("a", "http://x.test/a", "w"), doc("b", "http://x.test/b", "w"), doc("c", "http://x.test/c", "w"),
		doc("o", "http://other.test/b", "w"), `{"id":"n","title":"no url"}`+"\n")
	if _, err := ship(t, testConfig(s, index), dir); err != nil {
		t.Fatal(err)
	}
	ids(t, s, index, "*", 5)
	sink, err := New(testConfig(s, index))
	if err != nil {
		t.Fatal(err)
	}
	cfg := PruneConfig{
		Select: func(d Indexed) bool { return strings.HasPrefix(d.URL, "http://x.test/") },
		Decide: func(_ context.Context, d Indexed) Verdict {
			switch d.ID {
			case "b":
				return Verdict{Delete: true, Reason: "gone"}
			case "c":
				return Verdict{Failed: true, Reason: "no answer"}
			}
			return Verdict{Reason: "fine"}
		},
		DryRun: true,
	}
	summary := func(r PruneResult) string {
		var out []string
		for _, o := range r.Outcomes {
			out = append(out, fmt.Sprintf("%s delete=%v deleted=%v failed=%v %s", o.ID, o.Delete, o.Deleted, o.Failed, o.Reason))
		}
		sort.Strings(out)
		return fmt.Sprintf("listed %d checked %d kept %d deleted %d failed %d\n%s", r.Listed, r.Checked, r.Kept, r.Deleted, r.Failed, strings.Join(out, "\n"))
	}
	dry, err := Prune(context.Background(), sink, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := "listed 5 checked 3 kept 1 deleted 1 failed 1\n" +
		"a delete=false deleted=false failed=false fine\n" +
		"b delete=true deleted=false failed=false gone\n" +
		"c delete=false deleted=false failed=true no answer"
	if diff := cmp.Diff(want, summary(dry)); diff != "" {
		t.Errorf("dry run (-want +got):\n%s", diff)
	}
	if got := ids(t, s, index, "*", 5); len(got) != 5 {
		t.Fatalf("the dry run deleted: %v left", got)
	}

	cfg.DryRun = false
	r, err := Prune(context.Background(), sink, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Replace(want, "b delete=true deleted=false", "b delete=true deleted=true", 1), summary(r)); diff != "" {
		t.Errorf("run (-want +got):\n%s", diff)
	}
	if got, want := exactIDs(t, s, index, 4), []string{"a", "c", "n", "o"}; !cmp.Equal(got, want) {
		t.Errorf("left in the index %v, want %v", got, want)
	}
	// Deleting a document that is not there is no error.
	if err := sink.Delete(context.Background(), "b"); err != nil {
		t.Errorf("Delete of a deleted document: %v", err)
	}
}
