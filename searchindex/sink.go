// Package searchindex sends a crawl's search documents to a search index through
// Elasticsearch 8's _bulk API, with the official client (github.com/elastic/go-elasticsearch/v8)
// and its bulk indexer. Every document is indexed with _id = its id, so a document sent again
// replaces itself: a resend never makes a duplicate.
//
// documents.jsonl stays the durable source. A Shipper sends its lines in file order and
// records in the crawl directory (report.IndexFile) how far the index has acknowledged them:
// the byte offset before which every line was acknowledged, or refused for good and reported.
// A crawl killed with kill -9, or an index server down or restarted, therefore loses nothing
// (the lines past the offset are sent on the next pass, by the same crawl, its resume or
// `amber index`) and duplicates nothing (a line sent twice replaces itself). Lines of one
// document written again later (a duplicate's URL added to additional_urls) are sent in file
// order, so the index ends with the last one.
//
// A Service does that beside a crawl (crawl.Service); Purge and Process act on an index after a
// crawl (the reference documents' purge phase and process crawls).
package searchindex

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esapi"
	"github.com/elastic/go-elasticsearch/v8/esutil"
)

// Config configures the connection to an index and how documents are sent.
type Config struct {
	// URL is the server's base URL, up to the API ("https://es.example.org:9200",
	// "http://127.0.0.1:4080/es" for ZincSearch). Required.
	URL string
	// Index is the index the documents go to. Required.
	Index string
	// APIKey (encoded) or Username and Password authenticate; none when all are empty.
	APIKey, Username, Password string
	// CAFile is a PEM file of certificate authorities trusted besides the system's;
	// CAFingerprint the SHA-256 fingerprint (hex) of the server's CA certificate; Insecure
	// turns certificate checks off.
	CAFile, CAFingerprint string
	Insecure              bool
	// Pipeline is the ingest pipeline of the documents ("" none); PipelineParams are added to
	// every document as fields.
	Pipeline       string
	PipelineParams map[string]any
	// BulkMaxItems and BulkMaxBytes bound one _bulk request. Defaults 1,000 and 5 MiB.
	BulkMaxItems, BulkMaxBytes int
	// RequestTimeout bounds one request (default 30s). A request or document that the server
	// could not take for now (no answer, 429, 5xx) is sent again Retries times (default 3,
	// negative: none), after RetryDelay (default 2s), doubling each time.
	RequestTimeout time.Duration
	Retries        int
	RetryDelay     time.Duration
	// Compression gzips the requests (ZincSearch does not read gzipped bodies).
	Compression bool
	// Logger receives what the archivist should know while documents are sent. Default: none.
	Logger *slog.Logger
}

// Defaults of Config.
const (
	DefaultBulkMaxItems   = 1000
	DefaultBulkMaxBytes   = 5 << 20
	DefaultRequestTimeout = 30 * time.Second
	DefaultRetries        = 3
	DefaultRetryDelay     = 2 * time.Second
)

func (c *Config) setDefaults() {
	if c.BulkMaxItems <= 0 {
		c.BulkMaxItems = DefaultBulkMaxItems
	}
	if c.BulkMaxBytes <= 0 {
		c.BulkMaxBytes = DefaultBulkMaxBytes
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.Retries == 0 {
		c.Retries = DefaultRetries
	} else if c.Retries < 0 {
		c.Retries = 0
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = DefaultRetryDelay
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// ErrUnavailable is wrapped by the error of a request the server could not take for now: no
// answer, 429 Too Many Requests, a 5xx. The documents are sent again later.
var ErrUnavailable = errors.New("searchindex: index unavailable")

// ErrRefused is wrapped by the error of a request the server refused as a whole, and will
// refuse again: 401 and 403 (credentials), another 4xx (a missing pipeline, a request too
// large), or an answer that does not account for the documents sent.
var ErrRefused = errors.New("searchindex: index refused the request")

// Sink sends documents to one index. It is safe for use by one goroutine at a time.
type Sink struct {
	cfg Config
	es  *elasticsearch.Client
	tr  *statusTransport
}

// New returns a Sink for cfg; it does not connect.
func New(cfg Config) (*Sink, error) {
	cfg.setDefaults()
	if cfg.URL == "" || cfg.Index == "" {
		return nil, errors.New("searchindex: a URL and an index are required")
	}
	ht := http.DefaultTransport.(*http.Transport).Clone()
	ht.ResponseHeaderTimeout = cfg.RequestTimeout
	ht.DialContext = (&net.Dialer{Timeout: min(cfg.RequestTimeout, 30*time.Second)}).DialContext
	if cfg.Insecure {
		ht.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	ec := elasticsearch.Config{
		Addresses: []string{cfg.URL}, APIKey: cfg.APIKey, Username: cfg.Username, Password: cfg.Password,
		CertificateFingerprint: cfg.CAFingerprint, CompressRequestBody: cfg.Compression,
		DisableRetry: true, // the Shipper retries, document by document
		Transport:    ht,
	}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("searchindex: read ca_file: %w", err)
		}
		ec.CACert = pem
	}
	es, err := elasticsearch.NewClient(ec)
	if err != nil {
		return nil, fmt.Errorf("searchindex: %w", err)
	}
	return &Sink{cfg: cfg, es: es, tr: &statusTransport{next: es}}, nil
}

// Config returns the sink's configuration, defaults filled in.
func (s *Sink) Config() Config { return s.cfg }

// Doc is one document to index.
type Doc struct {
	ID, URL string
	Source  []byte // the JSON object
}

// state is what became of one document sent.
type state int

const (
	unanswered state = iota // no answer for it (the request failed, or it was left out)
	acked                   // indexed
	retry                   // refused for now (429, 5xx): send again
	rejected                // refused for good (a mapping error, an invalid document)
)

// result is what became of one document sent.
type result struct {
	state  state
	reason string // why it was refused
}

// send indexes docs with one bulk indexer (as many requests as BulkMaxBytes makes of them) and
// returns what became of each. The error is the failure of a request as a whole
// (ErrUnavailable, ErrRefused); documents it left unanswered are in neither state. A server
// that answers a request with an error besides its items (ZincSearch stops at a document it
// cannot index and reports the documents before it, the failing one included, as created) is
// not trusted with those items: they are sent again one by one, so that the one refused is
// named.
func (s *Sink) send(ctx context.Context, docs []Doc) ([]result, error) {
	res, topErr, err := s.bulk(ctx, docs)
	if err != nil || topErr == "" {
		return res, err
	}
	if len(docs) == 1 {
		res[0] = result{state: rejected, reason: topErr}
		return res, nil
	}
	for i, d := range docs {
		if res[i].state != unanswered {
			continue
		}
		r, err := s.send(ctx, []Doc{d})
		if err != nil {
			return res, err
		}
		res[i] = r[0]
	}
	return res, nil
}

// bulk sends docs with one bulk indexer. topErr is an error a response carried besides its
// items (whose items are then left unanswered).
func (s *Sink) bulk(ctx context.Context, docs []Doc) (res []result, topErr string, err error) {
	res = make([]result, len(docs))
	var mu sync.Mutex // guards reqErr and topErr, set by the indexer's worker
	var reqErr error
	dec := &bulkDecoder{onError: func(e string) { mu.Lock(); topErr = e; mu.Unlock() }}
	s.tr.reset()
	bi, err := esutil.NewBulkIndexer(esutil.BulkIndexerConfig{
		Client: s.tr, Index: s.cfg.Index, Pipeline: s.cfg.Pipeline, Decoder: dec,
		NumWorkers: 1, FlushBytes: flushBytes(docs, s.cfg.BulkMaxBytes), FlushInterval: time.Hour,
		OnError: func(_ context.Context, err error) {
			mu.Lock()
			defer mu.Unlock()
			if reqErr == nil {
				reqErr = err
			}
		},
	})
	if err != nil {
		return res, "", fmt.Errorf("searchindex: %w", err)
	}
	for i, d := range docs {
		err := bi.Add(ctx, esutil.BulkIndexerItem{
			Action: "index", DocumentID: d.ID, Body: bytes.NewReader(d.Source),
			OnSuccess: func(context.Context, esutil.BulkIndexerItem, esutil.BulkIndexerResponseItem) {
				res[i] = result{state: acked}
			},
			OnFailure: func(_ context.Context, _ esutil.BulkIndexerItem, r esutil.BulkIndexerResponseItem, err error) {
				if err == nil {
					res[i] = itemResult(r)
				}
			},
		})
		if err != nil {
			break // ctx is done: Close says so
		}
	}
	cerr := bi.Close(ctx)
	mu.Lock()
	defer mu.Unlock()
	if reqErr == nil {
		reqErr = cerr
	}
	if reqErr != nil {
		return res, "", s.requestError(reqErr)
	}
	if topErr == "" {
		for _, r := range res {
			if r.state == unanswered {
				return res, "", fmt.Errorf("%w: the server's answer does not account for every document sent (a server that does not read gzipped requests? set compression off)", ErrRefused)
			}
		}
	}
	return res, topErr, nil
}

// flushBytes is the bulk indexer's flush threshold for docs: the size of their request (an
// action line of at most 128 bytes beside each id) when it is under max, else max. The indexer
// allocates its buffer at the threshold, for every batch: a batch of a few documents gets a
// buffer of their size, not of max.
func flushBytes(docs []Doc, max int) int {
	n := 1024
	for _, d := range docs {
		n += len(d.Source) + len(d.ID) + 128
		if n >= max {
			return max
		}
	}
	return n
}

// itemResult is what a bulk response's item says of a document it refused.
func itemResult(r esutil.BulkIndexerResponseItem) result {
	reason := r.Error.Type
	if r.Error.Reason != "" {
		reason += ": " + r.Error.Reason
	}
	if reason == "" {
		reason = fmt.Sprintf("status %d", r.Status)
	}
	if r.Status == http.StatusTooManyRequests || r.Status >= 500 {
		return result{state: retry, reason: reason}
	}
	return result{state: rejected, reason: reason}
}

// requestError classifies the failure of a request by the status the server answered.
func (s *Sink) requestError(err error) error {
	st := s.tr.status()
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	case st == 0 || st == http.StatusTooManyRequests || st >= 500:
		return fmt.Errorf("%w: %s: %w", ErrUnavailable, s.cfg.URL, err)
	case st == http.StatusUnauthorized || st == http.StatusForbidden:
		return fmt.Errorf("%w: %s: %d %s: check index.username and password or api_key", ErrRefused, s.cfg.URL, st, http.StatusText(st))
	default:
		return fmt.Errorf("%w: %s: %w", ErrRefused, s.cfg.URL, err)
	}
}

// statusTransport records the status of the last response that was not a success.
type statusTransport struct {
	next esapi.Transport
	mu   sync.Mutex // guards st
	st   int
}

func (t *statusTransport) Perform(req *http.Request) (*http.Response, error) {
	res, err := t.next.Perform(req)
	if res != nil && res.StatusCode/100 != 2 {
		t.mu.Lock()
		t.st = res.StatusCode
		t.mu.Unlock()
	}
	return res, err
}

func (t *statusTransport) reset() {
	t.mu.Lock()
	t.st = 0
	t.mu.Unlock()
}

func (t *statusTransport) status() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.st
}

// bulkDecoder reads a bulk response, and an error the response carries besides its items
// (not Elasticsearch's format, ZincSearch's): then the items are dropped, left unanswered.
type bulkDecoder struct{ onError func(string) }

func (d *bulkDecoder) UnmarshalFromReader(r io.Reader, blk *esutil.BulkIndexerResponse) error {
	var v struct {
		esutil.BulkIndexerResponse
		Error json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(r).Decode(&v); err != nil {
		return err
	}
	*blk = v.BulkIndexerResponse
	if len(v.Error) > 0 && string(v.Error) != "null" {
		var s string
		if json.Unmarshal(v.Error, &s) != nil {
			s = string(v.Error)
		}
		d.onError(s)
		blk.Items = nil
	}
	return nil
}
