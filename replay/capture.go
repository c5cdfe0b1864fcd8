package replay

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/amber-crawler/amber/warc"
)

// ErrNotFound is wrapped by the error of Capture for a URI of which the archive holds no
// capture that can be read.
var ErrNotFound = errors.New("replay: not in the archive")

// ErrTooLarge is wrapped by the error of Capture for a payload larger than asked for.
var ErrTooLarge = errors.New("replay: payload too large")

// Capture is one capture of a URI, read whole.
type Capture struct {
	URL    string      // the URI as captured
	Time   time.Time   // when it was captured
	Status int         // its HTTP status; 200 for a resource record
	Header http.Header // its archived header fields as a replay sends them (a resource record: Content-Type)
	Body   []byte      // its payload: de-chunked, in the content coding it was captured in
}

// Capture returns the capture of uri (an http(s) URL, or another URI the crawl archived, such
// as urn:screenshot:URL) that the Server would serve to a GET of it with an Accept-Datetime
// of at (zero: At()): of the captures of its CDX key, by the same order (scheme and host,
// status, time), revisits joined to their original, a redirect to itself passed over; the
// fuzzy rules are not applied. The body is read up to max bytes: a longer one is an error
// wrapping ErrTooLarge. No capture that can be read is an error wrapping ErrNotFound. It
// records no miss.
func (s *Server) Capture(uri string, at time.Time, max int64) (*Capture, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotFound, uri, err)
	}
	if at.IsZero() {
		at = s.At()
	}
	cands, err := s.archive.search(warc.CDXKey(uri)+" ", 0)
	if err != nil {
		return nil, err
	}
	for i := range cands {
		cands[i].rank = rankOf(cands[i], u, 0, at)
	}
	sortCandidates(cands)
	web := u.Scheme == "http" || u.Scheme == "https"
	var reasons []string
	for i, c := range cands {
		if i == tryLimit {
			break
		}
		a, err := s.open(c)
		if err == nil && web && isRedirectTo(a, u) {
			err = errors.New("a redirect to itself")
		}
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("%s (%s): %v", c.URL, c.Time.Format(time.RFC3339), err))
			continue
		}
		body, err := io.ReadAll(io.LimitReader(a.body.Payload(), max+1))
		if err != nil {
			return nil, fmt.Errorf("replay: %s: read payload: %w", c.URL, err)
		}
		if int64(len(body)) > max {
			return nil, fmt.Errorf("%w: %s: more than %d bytes", ErrTooLarge, c.URL, max)
		}
		return &Capture{URL: c.URL, Time: c.Time, Status: a.head.Status, Header: responseHeader(a.head), Body: body}, nil
	}
	if len(reasons) > 0 {
		return nil, fmt.Errorf("%w: %s: no capture could be read: %s", ErrNotFound, uri, strings.Join(reasons, "; "))
	}
	return nil, fmt.Errorf("%w: %s", ErrNotFound, uri)
}
