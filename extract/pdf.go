package extract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path"

	"github.com/ledongthuc/pdf"
)

// Bounds on the work spent on one PDF, so that a hostile file (a page tree with cycles, a
// compressed content stream of billions of operators) ends in bounded time.
const (
	maxPDFPages     = 10000    // pages read
	maxPDFTreeNodes = 100000   // page tree nodes visited
	maxPDFOps       = 20000000 // content stream operators interpreted
)

// errPDFBudget stops the interpretation of a PDF whose text or work budget is spent.
var errPDFBudget = errors.New("extract: pdf budget spent")

// ParseBinary returns the document of a binary file (a PDF, a Word file, ...) whose media
// type is listed in cfg.BinaryContentTypes: FileName (the last segment of the URL path,
// percent-decoded; "" for a path ending in '/'), ContentType (the media type), ContentLength
// (len(body)) and, for application/pdf, the text of its pages as Body, white space
// collapsed and limited to cfg.MaxBodySize. Text is read from the text-showing operators of
// each page's content streams, decoded with the fonts' encodings or ToUnicode maps; text
// positioning operators and large TJ gaps separate words. Other listed types get a
// document without Body. The url rules of cfg.Rulesets that apply to pageURL give its
// custom fields.
//
// Errors: ErrPageURL, ErrUnsupportedType for a type not listed, and ErrBinary (wrapped)
// for a PDF that cannot be read (broken, encrypted, or not a PDF), including one whose
// reading would have panicked inside the PDF library.
func ParseBinary(pageURL, contentType string, body []byte, cfg DocConfig) (*Document, error) {
	if _, err := newResolver(pageURL, ""); err != nil {
		return nil, err
	}
	if !cfg.ExtractsBinary(contentType) {
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedType, MediaType(contentType))
	}
	cfg = cfg.withDefaults()
	doc := &Document{
		FileName:      fileName(pageURL),
		ContentType:   MediaType(contentType),
		ContentLength: int64(len(body)),
	}
	if doc.ContentType == "application/pdf" {
		text, err := pdfText(body, cfg.MaxBodySize)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBinary, err)
		}
		doc.Body = text
	}
	doc.Fields = withRuleFields(cfg, pageURL, nil, nil)
	return doc, nil
}

// fileName returns the last segment of the path of u, percent-decoded and valid UTF-8.
func fileName(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" || p.Path[len(p.Path)-1] == '/' {
		return ""
	}
	return cleanText(path.Base(p.Path), 1024)
}

// pdfReader reads the text of one PDF under the budgets.
type pdfReader struct {
	text  textBuf
	ops   int
	nodes int
	pages int
}

// pdfText returns the text of the PDF in body, at most limit bytes.
func pdfText(body []byte, limit int) (text string, err error) {
	pr := &pdfReader{text: newTextBuf(limit)}
	defer func() {
		if r := recover(); r != nil {
			if r == errPDFBudget {
				text, err = pr.text.String(), nil
				return
			}
			text, err = "", fmt.Errorf("read pdf: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return "", fmt.Errorf("read pdf: %w", err)
	}
	pr.walk(r.Trailer().Key("Root").Key("Pages"), 0)
	return pr.text.String(), nil
}

// walk reads the pages under the page tree node v, in order.
func (pr *pdfReader) walk(v pdf.Value, depth int) {
	if pr.nodes++; pr.nodes > maxPDFTreeNodes || depth > 64 || pr.pages >= maxPDFPages {
		return
	}
	switch v.Key("Type").Name() {
	case "Pages":
		kids := v.Key("Kids")
		for i := 0; i < kids.Len(); i++ {
			pr.walk(kids.Index(i), depth+1)
		}
	case "Page":
		pr.pages++
		pr.page(pdf.Page{V: v})
	}
}

// page adds the text of one page.
func (pr *pdfReader) page(p pdf.Page) {
	fonts := map[string]pdf.TextEncoding{}
	for _, name := range p.Fonts() {
		fonts[name] = p.Font(name).Encoder()
	}
	contents := p.V.Key("Contents")
	if contents.Kind() == pdf.Array {
		for i := 0; i < contents.Len(); i++ {
			pr.stream(contents.Index(i), fonts)
		}
	} else {
		pr.stream(contents, fonts)
	}
	pr.text.sep()
}

// stream interprets one content stream.
func (pr *pdfReader) stream(strm pdf.Value, fonts map[string]pdf.TextEncoding) {
	if strm.Kind() != pdf.Stream {
		return
	}
	var enc pdf.TextEncoding
	show := func(s string) {
		if enc != nil {
			s = enc.Decode(s)
		}
		pr.text.writeString(s)
		if pr.text.full {
			panic(errPDFBudget)
		}
	}
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		if pr.ops++; pr.ops > maxPDFOps {
			panic(errPDFBudget)
		}
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT", "ET", "Td", "TD", "Tm", "T*":
			pr.text.sep()
		case "Tf":
			if n == 2 {
				enc = fonts[args[0].Name()]
			}
		case "'", "\"":
			pr.text.sep()
			if n > 0 {
				show(args[n-1].RawString())
			}
		case "Tj":
			if n == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if n != 1 {
				return
			}
			a := args[0]
			for i := 0; i < a.Len(); i++ {
				switch x := a.Index(i); x.Kind() {
				case pdf.String:
					show(x.RawString())
				case pdf.Integer, pdf.Real:
					if x.Float64() <= -200 {
						// A gap of a fifth of an em or more: a word space.
						pr.text.sep()
					}
				}
			}
		}
	})
}
