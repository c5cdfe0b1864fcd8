package fetch

import "context"

// Fetcher fetches one URL and returns everything it fetched for it. *Client is the plain HTTP
// implementation (one exchange); the browser fetcher loads the URL as a page and returns the
// page's exchange, the redirects it followed and every subresource, all made through a
// *Client. The crawl hands a Result from either to the same pipeline.
type Fetcher interface {
	Fetch(ctx context.Context, req Request) (*Result, error)
}

var _ Fetcher = (*Client)(nil)

// Result is what fetching one URL produced: the exchanges of one fetch, and what a rendering
// fetcher learnt from the page.
type Result struct {
	// Exchanges are the recorded exchanges in the order they were made. Exchanges[0] is the
	// request for the URL itself and is always present. A plain fetch has exactly that one; a
	// rendering fetcher adds the redirect hops it followed (each one's URL is the previous
	// one's Location) and then every subresource the page loaded. The caller must Close the
	// Result.
	Exchanges []*Exchange
	// Render is set by a fetcher that rendered the page; nil for a plain fetch.
	Render *Render
	// Blocked lists the sub-requests the fetcher refused (a block rule), in order, without
	// duplicates. They were not requested.
	Blocked []Refusal
	// Failed lists the sub-requests that got no response, or were not made.
	Failed []Failure
}

// Render is what loading a URL as a page in a browser showed.
type Render struct {
	// FinalURL is the main frame's URL at the end (after redirects and script navigations).
	FinalURL string
	// HTML is the rendered DOM of the main frame; empty when the page did not render (a
	// download, say). The Content-Type of Exchanges[0] tells whether the page was HTML.
	HTML string
	// Title is the main frame's document title.
	Title string
	// Links are the a[href] and area[href] links of the rendered DOM of every frame:
	// absolute, http(s) only, in document order, without duplicates.
	Links []Link
	// Screenshot is a PNG of the viewport after the behaviours, when one was asked for.
	Screenshot []byte
	// TimedOut reports that the page reached its time limit; what was captured is kept.
	TimedOut bool
}

// Admit decides a request a fetcher is about to make of its own for a URL (Request.Admit):
// "" lets it go; any other string refuses it, and is the reason Result.Blocked gives. It is
// called with the context of the fetch, may block (while a robots.txt is fetched, say), and
// must be safe for concurrent use.
type Admit func(ctx context.Context, url string) (reason string)

// Link is one link of a rendered page.
type Link struct {
	URL     string // absolute
	Context string // "a/@href" or "area/@href"
	// NoFollow is set when the link's rel has the token nofollow, or its frame's robots meta
	// says nofollow.
	NoFollow bool
}

// Refusal is a sub-request that a rule refused.
type Refusal struct {
	URL    string
	Reason string // why, as the rule said (a scope reason such as "block:contains:/ads/")
}

// Failure is a sub-request that got no response (Err is then a *Error) or was not made.
type Failure struct {
	URL string
	Err error
}

// Close closes every exchange of the result.
func (r *Result) Close() error {
	var err error
	for _, ex := range r.Exchanges {
		if cerr := ex.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}

// Fetch performs req and returns its one exchange as a Result.
func (c *Client) Fetch(ctx context.Context, req Request) (*Result, error) {
	ex, err := c.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	return &Result{Exchanges: []*Exchange{ex}}, nil
}

// BodySize returns the number of raw bytes after the final response's header block, as they
// came off the wire (chunk framing and content coding included): what Heritrix calls the
// content length and writes in crawl.log's size column.
func (e *Exchange) BodySize() int64 {
	if e.raw == nil {
		return 0
	}
	return e.raw.size - e.bodyStart
}
