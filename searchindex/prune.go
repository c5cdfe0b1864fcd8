package searchindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/elastic/go-elasticsearch/v8/esapi"
)

// PageSize is how many documents one _search request of Documents asks for.
const PageSize = 1000

// Indexed is a document of the index as Documents lists it: its _id and its url field ("" when
// it has none).
type Indexed struct {
	ID, URL string
}

// Documents returns the _id and url of every document of the index. It pages with from and
// size (ZincSearch has neither search_after nor a point in time), sorted by _id so that the
// pages neither overlap nor leave a document out (ZincSearch's order for match_all, by equal
// scores, changed between pages: 1,436 of 2,017 documents listed; its _doc order lost one).
// Elasticsearch 8 refuses to sort on _id unless indices.id_field_data.enabled is set: when
// the first page is refused (400), the listing is sorted by id.keyword, the keyword field
// Elasticsearch's dynamic mapping gives the document's id field (which is its _id), instead
// (not tried here: the tests' server is ZincSearch). It asks only for the url of each
// document. The documents listed are checked against the total the server counts: an index
// that changed while it was listed is an error (ErrUnavailable; list it again).
// Elasticsearch answers no page past its index.max_result_window (10,000 by default): raise
// it for a larger index.
func (s *Sink) Documents(ctx context.Context) ([]Indexed, error) {
	docs, err := s.documents(ctx, []any{"_id"})
	var br badRequest
	if err != nil && len(docs) == 0 && errors.As(err, &br) {
		docs, err = s.documents(ctx, []any{map[string]any{"id.keyword": map[string]any{"order": "asc", "unmapped_type": "keyword"}}})
	}
	return docs, err
}

// documents lists the index in the order sort gives (see Documents).
func (s *Sink) documents(ctx context.Context, sort []any) ([]Indexed, error) {
	var docs []Indexed
	seen := map[string]bool{}
	total := -1
	for from := 0; ; from += PageSize {
		page, n, err := s.page(ctx, from, sort)
		if err != nil {
			return docs, err
		}
		if total < 0 {
			total = n
		}
		for _, d := range page {
			if !seen[d.ID] {
				seen[d.ID] = true
				docs = append(docs, d)
			}
		}
		if len(page) < PageSize || from+PageSize >= total {
			break
		}
	}
	if len(docs) != total {
		return docs, fmt.Errorf("%w: index %s: %d documents listed, the server counts %d: did the index change? (run again)", ErrUnavailable, s.cfg.Index, len(docs), total)
	}
	return docs, nil
}

// badRequest is a search the server answered with 400 (a sort it refuses, say).
type badRequest struct{ error }

func (b badRequest) Unwrap() error { return b.error }

// page is one page of Documents, and the total number of documents the server counts.
func (s *Sink) page(ctx context.Context, from int, sort []any) ([]Indexed, int, error) {
	q, _ := json.Marshal(map[string]any{
		"query": map[string]any{"match_all": map[string]any{}},
		"from":  from, "size": PageSize, "track_total_hits": true, "_source": []string{"url"},
		"sort": sort,
	})
	res, err := esapi.SearchRequest{Index: []string{s.cfg.Index}, Body: bytes.NewReader(q)}.Do(ctx, s.es)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: search %s: %w", ErrUnavailable, s.cfg.Index, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: search %s: %w", ErrUnavailable, s.cfg.Index, err)
	}
	if res.IsError() {
		err := s.statusError("search "+s.cfg.Index, res.StatusCode, body)
		if res.StatusCode == http.StatusBadRequest {
			err = badRequest{err}
		}
		return nil, 0, err
	}
	var v struct {
		Hits struct {
			Total struct {
				Value int `json:"value"`
			} `json:"total"`
			Hits []struct {
				ID     string `json:"_id"`
				Source struct {
					URL any `json:"url"`
				} `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, 0, fmt.Errorf("%w: search %s: %w", ErrRefused, s.cfg.Index, err)
	}
	page := make([]Indexed, 0, len(v.Hits.Hits))
	for _, h := range v.Hits.Hits {
		u, _ := h.Source.URL.(string)
		page = append(page, Indexed{ID: h.ID, URL: u})
	}
	return page, v.Hits.Total.Value, nil
}

// Delete deletes the document id from the index; a document that is not there is no error
// (Elasticsearch's 404, ZincSearch's 400 "id not found").
func (s *Sink) Delete(ctx context.Context, id string) error {
	res, err := esapi.DeleteRequest{Index: s.cfg.Index, DocumentID: id}.Do(ctx, s.es)
	if err != nil {
		return fmt.Errorf("%w: delete %s: %w", ErrUnavailable, id, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if !res.IsError() || res.StatusCode == http.StatusNotFound ||
		(res.StatusCode == http.StatusBadRequest && bytes.Contains(body, []byte(`"id not found"`))) {
		return nil
	}
	return s.statusError("delete "+id, res.StatusCode, body)
}

// Refresh makes the index's changes visible to searches.
func (s *Sink) Refresh(ctx context.Context) error {
	res, err := esapi.IndicesRefreshRequest{Index: []string{s.cfg.Index}}.Do(ctx, s.es)
	if err != nil {
		return fmt.Errorf("%w: refresh %s: %w", ErrUnavailable, s.cfg.Index, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.IsError() {
		return s.statusError("refresh "+s.cfg.Index, res.StatusCode, body)
	}
	return nil
}

// statusError is the error of a request the server answered with status (not 2xx).
func (s *Sink) statusError(what string, status int, body []byte) error {
	msg := strings.TrimSpace(string(body))
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	kind := ErrRefused
	if status == http.StatusTooManyRequests || status >= 500 {
		kind = ErrUnavailable
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return fmt.Errorf("%w: %s: %s: %d %s: check index.username and password or api_key", kind, s.cfg.URL, what, status, http.StatusText(status))
	}
	return fmt.Errorf("%w: %s: %s: %d: %s", kind, s.cfg.URL, what, status, msg)
}

// Verdict is what becomes of one document of the index that a prune decides about.
type Verdict struct {
	// Delete says the document goes.
	Delete bool
	// Failed says no decision could be made (the URL did not answer): the document stays.
	Failed bool
	// Reason says why: the status of a purge's fetch, the scope's reason of a process.
	Reason string
}

// PurgeVerdict is the purge phase's decision for a document whose URL was fetched again and
// answered status, or failed with err: deleted on 3xx and 4xx, kept on 2xx and 5xx (and any
// other status); kept and failed when the fetch failed.
func PurgeVerdict(status int, err error) Verdict {
	if err != nil {
		return Verdict{Failed: true, Reason: err.Error()}
	}
	reason := fmt.Sprintf("%d %s", status, http.StatusText(status))
	return Verdict{Delete: status >= 300 && status < 500, Reason: strings.TrimSpace(reason)}
}

// PruneConfig says which documents of an index a prune decides about, and how.
type PruneConfig struct {
	// Select picks the documents to decide about; the others are left alone, undecided.
	Select func(Indexed) bool
	// Decide decides about one selected document.
	Decide func(context.Context, Indexed) Verdict
	// DryRun deletes nothing: the documents Decide would delete are only reported.
	DryRun bool
}

// Outcome is what became of one document a prune decided about.
type Outcome struct {
	Indexed
	Verdict
	// Deleted says it was deleted; DeleteError why its deletion failed (it is then Failed).
	Deleted     bool
	DeleteError string
}

// PruneResult counts what a prune did: the documents of the index, those decided about
// (Checked), and of these the ones kept, deleted (or to delete, in a dry run) and failed
// (kept undecided, or not deleted). Outcomes are the checked documents', in index order.
type PruneResult struct {
	Listed, Checked, Kept, Deleted, Failed int
	Outcomes                               []Outcome
}

// Prune lists the documents of the index (Documents), decides about those cfg selects and
// deletes by _id those Decide says go (unless cfg.DryRun), then refreshes the index. The error
// is a failure to list or refresh the index, or ctx done; a deletion that fails is an
// outcome.
func Prune(ctx context.Context, s *Sink, cfg PruneConfig) (PruneResult, error) {
	var r PruneResult
	docs, err := s.Documents(ctx)
	if err != nil {
		return r, err
	}
	r.Listed = len(docs)
	deleted := false
	for _, d := range docs {
		if !cfg.Select(d) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return r, err
		}
		o := Outcome{Indexed: d, Verdict: cfg.Decide(ctx, d)}
		r.Checked++
		switch {
		case o.Failed:
			r.Failed++
		case !o.Delete:
			r.Kept++
		case cfg.DryRun:
			r.Deleted++
		default:
			if err := s.Delete(ctx, d.ID); err != nil {
				o.Failed, o.DeleteError = true, err.Error()
				r.Failed++
				break
			}
			o.Deleted, deleted = true, true
			r.Deleted++
		}
		r.Outcomes = append(r.Outcomes, o)
	}
	if deleted {
		if err := s.Refresh(ctx); err != nil {
			return r, err
		}
	}
	return r, nil
}
