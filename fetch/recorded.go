package fetch

import (
	"bufio"
	"context"
	"io"
	"net/http"
)

// ReadResponse reads a recorded response for rawURL as a fetch reads one from its connection,
// and returns the Exchange that fetch would have had: resp is the response exactly as it
// crossed the wire (the block of a WARC response record: any interim responses, the status
// line and header fields, the body with its framing and content coding). The status, header
// and body (Body, ReadBody) are parsed, framed, decoded and bounded (Config.MaxResponseSize,
// spilled to a file above Config.SpillThreshold) as a fetch's are, so that what is read from
// a response recorded earlier is what was read from it when it was fetched. truncated is why
// the recording holds less than was sent (its WARC-Truncated), "" when it says nothing: a
// body that ends before its framing says is then truncated as a fetch's would be
// ("disconnect", "unspecified"). The Exchange was not fetched: it has no request, address or
// timing, and its Method is GET. The error is an *Error (Kind Protocol or Broken: resp holds
// no complete response head), or ErrSpill. The caller must Close the Exchange.
func (c *Client) ReadResponse(ctx context.Context, rawURL string, resp io.Reader, truncated string) (*Exchange, error) {
	ex := &Exchange{
		URL:     rawURL,
		Method:  http.MethodGet,
		maxBody: c.cfg.MaxResponseSize,
		raw:     &rawStore{threshold: c.cfg.SpillThreshold, dir: c.cfg.TempDir},
	}
	ok := false
	defer func() {
		if !ok {
			ex.raw.remove()
		}
	}()
	w := &wire{br: bufio.NewReaderSize(resp, 16<<10), rec: ex.raw, limit: c.cfg.MaxResponseSize}
	h, err := readFinalHead(ctx, w, rawURL)
	if err != nil {
		return nil, err
	}
	ex.StatusCode, ex.Proto, ex.Header = h.status, h.proto, h.header
	ex.bodyStart = ex.raw.size
	f := bodyFraming(http.MethodGet, h)
	ex.chunked = f.chunked
	complete, berr := w.readBody(f)
	if !complete {
		if ex.Truncated, err = truncation(ctx, rawURL, berr); err != nil {
			return nil, err
		}
	}
	if truncated != "" {
		ex.Truncated = truncated
	}
	if err := ex.raw.finish(); err != nil {
		return nil, err
	}
	ok = true
	return ex, nil
}
