// Package contentfilter decides which responses a crawl reads (FAST's allowed_types,
// uri_search_mime and exclude_headers, and limits.oversize: drop): a response it leaves out
// is archived as it came, but the crawl follows none of its links and writes no search
// document for it, and its capture says why; a response of a type allowed_types leaves out is
// not even fetched when its head says so: its body is not read, and only its request is
// archived. Its Filter and LinkTypes are processors of the crawl's chain (package chain):
// before the fetch, and before and after the content is read.
package contentfilter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/report"
)

// ErrConfig is wrapped by the errors of NewHeaderRule.
var ErrConfig = errors.New("contentfilter: invalid config")

// Config says which responses the crawl reads (FAST's allowed_types, uri_search_mime
// and exclude_headers). What it decides is whether the crawl uses a response: follows its
// links and writes its search document; and, for a type Types leaves out that the response's
// head names, whether its body is fetched at all. It applies to a URL's own response (with
// the browser fetcher, the page's document at the end of its redirects) and to each
// subresource a browser loads with a page (whose capture then says it was excluded; the crawl
// reads no links from those), not to robots.txt, sitemaps and feeds; and not to a redirect
// (3xx), whose target is followed whatever its type and fields.
type Config struct {
	// Types are the MIME types of the responses the crawl uses, each "type/subtype" (any
	// case) with "*" standing for a whole field ("text/*", "*/*"). A response of another
	// type is not used: its links are not followed and it has no search document, and a
	// content-excluded event is written. When its head names the type (Content-Type) and the
	// HTTP client fetches it (not the browser, which loads a page whole), its body is not
	// fetched (Heritrix's shouldFetchBodyRule): the connection is closed once the head has
	// arrived, only the request is archived, with a metadata record "notFetched: type:TYPE",
	// "notFetchedBytes: N" (the Content-Length, or "unknown") and "responseStatus: S", and its
	// crawl.log line says type-not-fetched:TYPE and bytes-not-fetched:N|unknown. Otherwise
	// (a response without a Content-Type, whose type is sniffed from the first 512 bytes of
	// its body; what a browser loaded) it is archived as it came, its crawl.log line says
	// type-excluded:TYPE and its metadata record "excluded: type:TYPE". Default none: every
	// type.
	Types []string
	// LinkTypes are the MIME types (written as Types) of the responses whose links the crawl
	// follows: a response amber would read links from (HTML, XHTML or CSS; a page the browser
	// rendered) of another type gives none (not its embeds either; a Location or Refresh
	// header is still followed), and its crawl.log line says links-not-searched:TYPE; its
	// search document is written. amber reads links from HTML, XHTML and CSS only: another
	// type listed here gives none. Default none: every type amber reads.
	LinkTypes []string
	// ExcludeHeaders exclude responses by their header fields: a response with a field
	// that a rule names, one of whose values its pattern matches (anywhere in the value;
	// anchor with ^ and $), is treated as a type Types leaves out, with the crawl.log
	// annotation header-excluded:NAME and the metadata record "excluded: header:NAME". A
	// response without the field is not excluded by its rules. Default none.
	ExcludeHeaders []HeaderRule
}

// HeaderRule excludes the responses whose header field Name has a value Pattern matches
// (Config.ExcludeHeaders). Make one with NewHeaderRule.
type HeaderRule struct {
	Name    string // the field name, canonical (http.CanonicalHeaderKey)
	Pattern *regexp.Regexp
}

// NewHeaderRule returns the rule excluding the responses whose field name has a value that
// the regular expression pattern (Go's syntax, RE2) matches.
func NewHeaderRule(name, pattern string) (HeaderRule, error) {
	if !httpguts.ValidHeaderFieldName(name) {
		return HeaderRule{}, fmt.Errorf("%w: %q is not a header field name", ErrConfig, name)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return HeaderRule{}, fmt.Errorf("%w: header %s: %w", ErrConfig, name, err)
	}
	return HeaderRule{Name: http.CanonicalHeaderKey(name), Pattern: re}, nil
}

// Crawl.log annotations and metadata of the content filter (Config).
const (
	noteTypeExcluded    = "type-excluded:"      // + the response's type
	noteHeaderExcluded  = "header-excluded:"    // + the field's name
	noteTypeNotFetched  = "type-not-fetched:"   // + the type the response's head gave
	noteBytesNotFetched = "bytes-not-fetched:"  // + the body's Content-Length, or "unknown"
	noteLinksNotRead    = "links-not-searched:" // + the response's type
	// NoteOversize is the crawl.log annotation of a page dropped because it was cut at the
	// response size limit (chain.Settings.DropOversize).
	NoteOversize = "dropped:oversize"
	// ActionExcluded is the event of a response Config excluded: not used, and archived
	// (reason "type-excluded" or "header-excluded") or not fetched (reason "type-not-fetched").
	// Its labels are the type or the field's name, and for one not fetched its bytes.
	ActionExcluded = "content-excluded"
)

// Validate reports the first MIME type that is not "type/subtype" (a field either "*" or
// without one), or a header rule not made by NewHeaderRule, as a *chain.FieldError.
func (c Config) Validate() error {
	for _, f := range []struct {
		name  string
		types []string
	}{{"Types", c.Types}, {"LinkTypes", c.LinkTypes}} {
		for _, t := range f.types {
			if err := validMIMEPattern(t); err != nil {
				return &chain.FieldError{Field: f.name, Err: err}
			}
		}
	}
	for i, r := range c.ExcludeHeaders {
		if r.Pattern == nil || !httpguts.ValidHeaderFieldName(r.Name) {
			return &chain.FieldError{Field: fmt.Sprintf("ExcludeHeaders[%d]", i), Err: errors.New("not made by NewHeaderRule")}
		}
	}
	return nil
}

func validMIMEPattern(p string) error {
	typ, sub, ok := strings.Cut(p, "/")
	if !ok || !validMIMEField(typ) || !validMIMEField(sub) {
		return fmt.Errorf("%q: want type/subtype, a field * or without *", p)
	}
	return nil
}

func validMIMEField(f string) bool {
	if f == "*" {
		return true
	}
	return f != "" && !strings.Contains(f, "*") && httpguts.ValidHeaderFieldName(f)
}

// MatchType reports whether the MIME type mt (without parameters) is one of patterns, whose
// "*" fields match any field (FAST's wildcards of allowed_types and uri_search_mime).
func MatchType(patterns []string, mt string) bool {
	typ, sub, _ := strings.Cut(strings.ToLower(mt), "/")
	return slices.ContainsFunc(patterns, func(p string) bool {
		pt, ps, _ := strings.Cut(strings.ToLower(p), "/")
		return (pt == "*" || pt == typ) && (ps == "*" || ps == sub)
	})
}

// Filter is the chain's content filter before the fetch and before the content is read: a
// response whose head gives a type Types leaves out has its body left unfetched; a page cut
// at the response size limit whose settings drop such pages (chain.Settings.DropOversize), or
// of a type Types leaves out, or with a field ExcludeHeaders names, is archived but not read.
type Filter struct {
	cfg    Config
	events *report.Events
}

// New returns the filter of cfg; events receives its content-excluded events.
func New(cfg Config, events *report.Events) *Filter { return &Filter{cfg: cfg, events: events} }

func (*Filter) Name() string { return "content" }

// Before has the URL's request ask the filter about its response's head before the body is
// read (fetch.Request.FetchBody), when Types is set and the URL is not a listing document (a
// sitemap file or a feed).
func (f *Filter) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	if len(f.cfg.Types) > 0 && !r.URL().Sitemap {
		r.Request.FetchBody = f.fetchBody
	}
	return chain.Proceed, nil
}

// fetchBody reports whether to read the body of a response with status and header: not when
// its Content-Type is a type Types leaves out. A redirect's is read whatever its type, and so
// is one without a Content-Type (its type is sniffed from its body).
func (f *Filter) fetchBody(status int, header http.Header) bool {
	mt := extract.MediaType(header.Get("Content-Type"))
	return isRedirect(status) || mt == "" || MatchType(f.cfg.Types, mt)
}

// After marks the content of the page unread when its body was not fetched (its capture
// marked so), or it is dropped or excluded, and the captures of the subresources a browser
// loaded with it that Types or ExcludeHeaders leave out (the crawl reads nothing of those:
// only their captures say so).
func (f *Filter) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	for i := r.Doc + 1; i < len(r.Result.Exchanges); i++ {
		f.Excluded(r.Result.Exchanges[i], &r.Captures[i])
	}
	ex, k := r.Exchange(), &r.Captures[r.Doc]
	if notFetched(ex, k) {
		r.Content.Unread = true
		return chain.Proceed, nil
	}
	if r.Content.Unread || r.Content.Listed {
		return chain.Proceed, nil
	}
	// A 304 read back from its earlier capture is judged on the capture shown in its place.
	ex = r.Shown()
	if r.Settings.DropOversize && DropOversize(ex, k) || f.Excluded(ex, k) {
		r.Content.Unread = true
	}
	return chain.Proceed, nil
}

// notFetched reports whether the body of ex was not fetched, its head giving a type Types
// leaves out (fetch.Exchange.BodyNotFetched: Filter.Before asked the fetch so). Its capture k
// is then marked so: crawl.log annotations type-not-fetched:TYPE and bytes-not-fetched:N (the
// length its head declared) or bytes-not-fetched:unknown, and metadata record lines
// notFetched: type:TYPE, notFetchedBytes: N or unknown, and responseStatus: the status.
func notFetched(ex *fetch.Exchange, k *chain.Capture) bool {
	if !ex.BodyNotFetched {
		return false
	}
	mt := extract.MediaType(ex.Header.Get("Content-Type"))
	size := "unknown"
	if ex.NotFetchedSize >= 0 {
		size = strconv.FormatInt(ex.NotFetchedSize, 10)
	}
	k.AddField("notFetched", "type:"+mt)
	k.AddField("notFetchedBytes", size)
	k.AddField("responseStatus", strconv.Itoa(ex.StatusCode))
	k.Annotate(noteTypeNotFetched+mt, noteBytesNotFetched+size)
	return true
}

// Recorded writes the content-excluded event of each capture After excluded: the page's, and
// its subresources' (those archived: not one the crawl held already, warc.Result.Held).
func (f *Filter) Recorded(r *chain.Record) error {
	u := r.URL()
	if err := f.Event(r.Captures[r.Doc], report.URLInfo{URL: r.DocURL(), Hops: u.Hops, Via: u.Via, Seed: u.Seed}); err != nil {
		return err
	}
	for i := r.Doc + 1; i < len(r.Result.Exchanges); i++ {
		if i < len(r.Records) && r.Records[i].Held {
			continue
		}
		k := r.Captures[i]
		if err := f.Event(k, report.URLInfo{URL: r.Result.Exchanges[i].URL, Hops: k.Hops, Via: k.Via, Seed: k.Seed}); err != nil {
			return err
		}
	}
	return nil
}

// Event writes the content-excluded event of a capture Excluded or After marked; info
// names its URL.
func (f *Filter) Event(k chain.Capture, info report.URLInfo) error {
	for _, a := range k.Annotations {
		var ev report.Event
		if what, ok := strings.CutPrefix(a, noteTypeExcluded); ok {
			ev = report.Event{Reason: "type-excluded", Labels: map[string]string{"type": what},
				Message: info.URL + ": archived, of type " + what + ", which content.types leaves out; its links are not followed and it has no search document"}
		} else if what, ok := strings.CutPrefix(a, noteHeaderExcluded); ok {
			ev = report.Event{Reason: "header-excluded", Labels: map[string]string{"header": what},
				Message: info.URL + ": archived, with a " + what + " field that content.exclude_headers excludes; its links are not followed and it has no search document"}
		} else if what, ok := strings.CutPrefix(a, noteTypeNotFetched); ok {
			size := notFetchedBytes(k.Annotations)
			of := size + " bytes"
			if size == "unknown" {
				of = "of unknown length"
			}
			ev = report.Event{Reason: "type-not-fetched", Labels: map[string]string{"type": what, "bytes": size},
				Message: info.URL + ": not fetched, of type " + what + ", which content.types leaves out: its body (" + of + ") was not read and only its request is archived"}
		} else {
			continue
		}
		ev.Action, ev.Type, ev.Outcome, ev.URL = ActionExcluded, "denied", "success", &info
		if err := f.events.Event(ev); err != nil {
			return fmt.Errorf("write content event: %w", err)
		}
	}
	return nil
}

// notFetchedBytes is the value of the bytes-not-fetched annotation among notes.
func notFetchedBytes(notes []string) string {
	for _, a := range notes {
		if v, ok := strings.CutPrefix(a, noteBytesNotFetched); ok {
			return v
		}
	}
	return "unknown"
}

// DropOversize reports whether the capture ex, the page's content, was cut at the response
// size limit (WARC-Truncated: length), for a URL whose settings drop such a page. Its
// capture k is then marked so (crawl.log annotation dropped:oversize; metadata record
// dropped: oversize).
func DropOversize(ex *fetch.Exchange, k *chain.Capture) bool {
	if ex.Truncated != "length" {
		return false
	}
	k.AddField("dropped", "oversize")
	k.Annotate(NoteOversize)
	return true
}

// Excluded reports whether ex, the content of a URL's response, is left unused by Config: of
// a type Types leaves out, or with a field ExcludeHeaders names. Its capture k is then marked
// so (crawl.log annotation, metadata record field). A redirect is never excluded.
func (f *Filter) Excluded(ex *fetch.Exchange, k *chain.Capture) bool {
	cc := f.cfg
	if (len(cc.Types) == 0 && len(cc.ExcludeHeaders) == 0) || isRedirect(ex.StatusCode) {
		return false
	}
	var field, note string
	if len(cc.Types) > 0 {
		if mt := ResponseType(ex); !MatchType(cc.Types, mt) {
			field, note = "type:"+mt, noteTypeExcluded+mt
		}
	}
	if note == "" {
		name, ok := excludedBy(cc.ExcludeHeaders, ex.Header)
		if !ok {
			return false
		}
		field, note = "header:"+name, noteHeaderExcluded+name
	}
	k.AddField("excluded", field)
	k.Annotate(note)
	return true
}

// excludedBy returns the name of the first rule's field one of whose values h has and its
// pattern matches.
func excludedBy(rules []HeaderRule, h http.Header) (string, bool) {
	for _, r := range rules {
		for _, v := range h.Values(r.Name) {
			if r.Pattern.MatchString(v) {
				return r.Name, true
			}
		}
	}
	return "", false
}

// ResponseType is the MIME type of a response: its Content-Type's, or without one the type
// sniffed from the first 512 bytes of its decoded body (as extraction reads it).
func ResponseType(ex *fetch.Exchange) string {
	if mt := extract.MediaType(ex.Header.Get("Content-Type")); mt != "" {
		return mt
	}
	var head []byte
	if r, err := ex.Body(); err == nil {
		head, _ = io.ReadAll(io.LimitReader(r, 512))
		r.Close()
	}
	return extract.MediaType(http.DetectContentType(head))
}

// LinkTypes is the chain's content filter after the content is read: the links of a response
// whose type is not one of Config.LinkTypes are taken out, and its capture marked so
// (links-not-searched:TYPE). A Location or Refresh header's target stays: it is not a link
// found in the content.
type LinkTypes struct{ types []string }

// NewLinkTypes returns the step of cfg.LinkTypes.
func NewLinkTypes(cfg Config) LinkTypes { return LinkTypes{types: cfg.LinkTypes} }

func (LinkTypes) Name() string { return "content.link_types" }

// After takes the links out of the content read from the page's exchange when its type is
// not one of the types.
func (l LinkTypes) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	ex := r.Shown()
	if len(l.types) == 0 || r.Content.Unread || r.Content.Listed || isRedirect(ex.StatusCode) {
		return chain.Proceed, nil
	}
	mt := ResponseType(ex)
	if MatchType(l.types, mt) || !(r.Result.Render != nil || extract.Reads(mt)) {
		return chain.Proceed, nil
	}
	r.Content.Links = slices.DeleteFunc(r.Content.Links, func(o extract.Outlink) bool {
		return o.Context != "header/location" && o.Context != "header/refresh"
	})
	r.Content.Dropped = 0
	r.Captures[r.Doc].Annotate(noteLinksNotRead + mt)
	return chain.Proceed, nil
}

func isRedirect(code int) bool { return code >= 300 && code < 400 }
