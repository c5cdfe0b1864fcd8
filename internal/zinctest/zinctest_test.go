package zinctest

import (
	"net/http"
	"syscall"
	"testing"
	"time"
)

func TestIndexSearchRestart(t *testing.T) {
	s := StartT(t)
	if err := s.Do(http.MethodPut, "/docs/_doc/a", map[string]any{"body_content": "amber archives the web"}, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		hits, err := s.Search("docs", "archives")
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 1 {
			t.Logf("searchable after %d polls", i)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Stop(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search("docs", "archives")
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != "a" {
		t.Errorf("Search after restart = %+v, want document a", hits)
	}
}
