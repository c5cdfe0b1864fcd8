package searchindex

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/report"
)

// PollInterval is how often a Service looks for new lines in documents.jsonl while the index
// answers.
const PollInterval = 250 * time.Millisecond

// maxWait bounds the wait between two tries of an index that does not answer.
const maxWait = time.Minute

// Service sends a crawl's documents to the index while the crawl runs (a crawl.Service): it
// follows documents.jsonl and ships what is new every PollInterval. While the index does not
// answer the crawl goes on, and the backlog is sent when it answers again (tried again after
// RetryDelay, doubling, at most a minute apart). When the run ends (Drain) it ships what is
// left, with Config.Retries tries, and writes the record with the backlog, before the crawl
// writes its reports. A refusal for good (credentials, ...) stops the sending for this run;
// the documents stay in documents.jsonl for a resume or `amber index`.
type Service struct {
	sink *Sink

	sh   *Shipper
	stop chan struct{}      // closed by Drain
	done chan struct{}      // closed when follow returns
	rec  report.IndexRecord // the record at the end of the last run
	mu   sync.Mutex         // guards rec
}

var _ crawl.Service = (*Service)(nil)

// NewService returns the service of sink.
func NewService(sink *Sink) *Service { return &Service{sink: sink} }

// Start opens the record of the run's crawl directory and starts following documents.jsonl.
func (s *Service) Start(h *crawl.Handle) error {
	if l := h.Log(); l != nil {
		s.sink.cfg.Logger = l
	}
	sh, err := Open(s.sink, h.Dir(), h.Events())
	if err != nil {
		return err
	}
	s.sh = sh
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go s.follow()
	return nil
}

// follow ships every PollInterval (what came meanwhile, as one request) until Drain or the index refuses for good. A Ship under way
// when Drain comes is finished, not cut off: what it sent is recorded, not sent again.
func (s *Service) follow() {
	defer close(s.done)
	log := s.sink.cfg.Logger
	wait, down := PollInterval, false
	for {
		select {
		case <-s.stop:
			return
		case <-time.After(wait):
		}
		err := s.sh.shipFull(context.Background())
		switch {
		case err == nil:
			if down {
				log.Info("search index answers again; sending the backlog", "url", s.sink.cfg.URL)
				s.event("index-available", "", "")
			}
			wait, down = PollInterval, false
		case errors.Is(err, ErrUnavailable):
			if !down {
				log.Warn("search index unavailable; the crawl goes on, documents.jsonl keeps the documents and they are sent when it answers", "url", s.sink.cfg.URL, "err", err)
				s.event("index-unavailable", "unknown", err.Error())
				wait = s.sink.cfg.RetryDelay
			} else {
				wait = min(wait*2, maxWait)
			}
			down = true
		default:
			log.Error("search index refused the documents; they stay in documents.jsonl (amber index sends them)", "url", s.sink.cfg.URL, "err", err)
			s.event("index-refused", "failure", err.Error())
			return
		}
	}
}

// event records an event about the index as a whole.
func (s *Service) event(action, outcome, msg string) {
	if s.sh.events == nil {
		return
	}
	typ := "info"
	if outcome != "" {
		typ = "error"
	}
	_ = s.sh.events.Event(report.Event{Action: action, Type: typ, Outcome: outcome, Message: msg,
		Labels: map[string]string{"index": s.sink.cfg.Index, "index_url": s.sink.cfg.URL}})
}

// Drain stops following, ships what is left (unless the index refused for good) and writes
// the record with the backlog.
func (s *Service) Drain() {
	if s.sh == nil {
		return
	}
	close(s.stop)
	<-s.done
	log := s.sink.cfg.Logger
	if s.sh.rec.Error == "" {
		if err := s.sh.Ship(context.Background()); err != nil && !errors.Is(err, ErrRefused) {
			log.Warn("search index: documents left to send (a resume or amber index sends them)", "url", s.sink.cfg.URL, "err", err)
			s.event("index-unavailable", "unknown", err.Error())
		} else if err != nil {
			log.Error("search index refused the documents", "url", s.sink.cfg.URL, "err", err)
			s.event("index-refused", "failure", err.Error())
		}
	}
	rec, err := s.sh.Finish()
	if err != nil {
		log.Error("write the search index record", "err", err)
	}
	s.mu.Lock()
	s.rec = rec
	s.mu.Unlock()
	s.sh = nil
}

// Stop does nothing: the work ended with Drain.
func (s *Service) Stop() {}

// Record is the record as the last run left it.
func (s *Service) Record() report.IndexRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec
}
