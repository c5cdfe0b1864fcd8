package fast

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsFAST(t *testing.T) {
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"declaration", `<?xml version="1.0" encoding="utf-8"?>` + "\n<CrawlerConfig/>", true},
		{"bare", `<CrawlerConfig><DomainSpecification name="x"/></CrawlerConfig>`, true},
		{"byte order mark", "\xef\xbb\xbf<?xml version=\"1.0\"?><CrawlerConfig/>", true},
		{"comments and space first", "\n  <!-- exported -->\n<!-- again --><CrawlerConfig >", true},
		{"malformed after the root", `<CrawlerConfig><DomainSpecification`, true},
		{"another root", `<?xml version="1.0"?><config/>`, false},
		{"namespaced root", `<x:CrawlerConfig xmlns:x="urn:x"/>`, false},
		{"YAML", "collection: x\nseeds: [http://example.com/]\n", false},
		{"Elastic YAML", "domains:\n  - url: https://example.com\n", false},
		{"text first", `CrawlerConfig <CrawlerConfig/>`, false},
		{"empty", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsFAST([]byte(tt.data)); got != tt.want {
				t.Errorf("IsFAST = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	data := `<?xml version="1.0" encoding="utf-8"?>
<!-- a comment -->
<CrawlerConfig xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <DomainSpecification name=" sp ">
    <attrib name="delay" type="real"> 10.5 </attrib>
    <attrib name="robots" type="boolean">NO</attrib>
    <attrib name="start_uris" type="list-string">
      <member> http://a.example/ </member>
      <!-- skipped -->
      <member><![CDATA[http://b.example/?a=1&b=2]]></member>
    </attrib>
    <section name="crawlmode">
      <attrib name="mode" type="string">DEPTH:3</attrib>
    </section>
    <SubDomain name="s1"><attrib name="delay" type="real">1</attrib></SubDomain>
    <Login name="l1"><section name="parameters"><attrib name="user" type="string">u</attrib></section></Login>
    <Node name="n1"><attrib name="max_pending" type="integer">-4</attrib></Node>
  </DomainSpecification>
  <DomainSpecification name="other"/>
</CrawlerConfig>
`
	f, err := Parse([]byte(data), "c.xml")
	if err != nil {
		t.Fatal(err)
	}
	dp := "CrawlerConfig/DomainSpecification[name=sp]"
	want := &File{Name: "c.xml", Domains: []*Domain{{
		File: "c.xml", Name: "sp", Path: dp, Line: 4,
		Attribs: []*Attrib{
			{Name: "delay", Type: Real, Path: dp + "/attrib[name=delay]", Line: 5, Text: "10.5", Real: 10.5},
			{Name: "robots", Type: Boolean, Path: dp + "/attrib[name=robots]", Line: 6, Text: "NO"},
			{Name: "start_uris", Type: ListString, Path: dp + "/attrib[name=start_uris]", Line: 7,
				Members: []string{"http://a.example/", "http://b.example/?a=1&b=2"}},
		},
		Sections: []*Section{{Element: "section", Name: "crawlmode", Path: dp + "/section[name=crawlmode]", Line: 12,
			Attribs: []*Attrib{{Name: "mode", Type: String, Path: dp + "/section[name=crawlmode]/attrib[name=mode]", Line: 13, Text: "DEPTH:3"}}}},
		SubDomains: []*Section{{Element: "SubDomain", Name: "s1", Path: dp + "/SubDomain[name=s1]", Line: 15,
			Attribs: []*Attrib{{Name: "delay", Type: Real, Path: dp + "/SubDomain[name=s1]/attrib[name=delay]", Line: 15, Text: "1", Real: 1}}}},
		Logins: []*Section{{Element: "Login", Name: "l1", Path: dp + "/Login[name=l1]", Line: 16,
			Sections: []*Section{{Element: "section", Name: "parameters", Path: dp + "/Login[name=l1]/section[name=parameters]", Line: 16,
				Attribs: []*Attrib{{Name: "user", Type: String, Path: dp + "/Login[name=l1]/section[name=parameters]/attrib[name=user]", Line: 16, Text: "u"}}}}}},
		Nodes: []*Section{{Element: "Node", Name: "n1", Path: dp + "/Node[name=n1]", Line: 17,
			Attribs: []*Attrib{{Name: "max_pending", Type: Integer, Path: dp + "/Node[name=n1]/attrib[name=max_pending]", Line: 17, Text: "-4", Int: -4}}}},
	}, {File: "c.xml", Name: "other", Path: "CrawlerConfig/DomainSpecification[name=other]", Line: 19}}}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	const dp = "CrawlerConfig/DomainSpecification[name=d]"
	dom := func(body string) string {
		return "<CrawlerConfig>\n<DomainSpecification name=\"d\">\n" + body + "\n</DomainSpecification>\n</CrawlerConfig>\n"
	}
	tests := []struct {
		name string
		data string
		path string
		line int
	}{
		{"not well-formed", dom(`<attrib name="delay" type="real">1</section>`), "", 3},
		{"unclosed", "<CrawlerConfig>\n<DomainSpecification name=\"d\">", "", 2},
		{"no root", "<?xml version=\"1.0\"?>\n", "", 2},
		{"wrong root", "\n<Config/>", "", 2},
		{"second root", "<CrawlerConfig/>\n<CrawlerConfig/>", "", 2},
		{"text after the root", "<CrawlerConfig/>\ntext", "", 2},
		{"DOCTYPE", "<!DOCTYPE x [<!ENTITY a \"b\">]>\n<CrawlerConfig/>", "", 1},
		{"not UTF-8", `<?xml version="1.0" encoding="ISO-8859-1"?><CrawlerConfig/>`, "", 1},
		{"unknown element in CrawlerConfig", "<CrawlerConfig>\n<Domain name=\"d\"/></CrawlerConfig>", "CrawlerConfig", 2},
		{"DomainSpecification without a name", "<CrawlerConfig>\n<DomainSpecification/></CrawlerConfig>", "CrawlerConfig/DomainSpecification", 2},
		{"two DomainSpecifications of one name", "<CrawlerConfig><DomainSpecification name=\"d\"/>\n<DomainSpecification name=\"d\"/></CrawlerConfig>", dp, 2},
		{"unknown XML attribute", "<CrawlerConfig version=\"2\"/>", "CrawlerConfig", 1},
		{"namespaced element", "<CrawlerConfig xmlns=\"urn:fast\"/>", "", 1},
		{"text in a DomainSpecification", dom("delay=60"), dp, 3},
		{"unknown element in a DomainSpecification", dom(`<parameter name="x"/>`), dp, 3},
		{"unknown element in a section", dom(`<section name="log">` + "\n" + `<SubDomain name="x"/></section>`), dp + "/section[name=log]", 4},
		{"section without a name", dom(`<section/>`), dp + "/section", 3},
		{"attrib without a type", dom(`<attrib name="delay">1</attrib>`), dp + "/attrib", 3},
		{"attrib type not in ST_type", dom(`<attrib name="delay" type="float">1</attrib>`), dp + "/attrib[name=delay]", 3},
		{"member in a string", dom(`<attrib name="info" type="string">` + "\n" + `<member>x</member></attrib>`), dp + "/attrib[name=info]/member[1]", 4},
		{"text beside members", dom(`<attrib name="start_uris" type="list-string">x<member>y</member></attrib>`), dp + "/attrib[name=start_uris]", 3},
		{"element in a member", dom(`<attrib name="start_uris" type="list-string"><member><b/></member></attrib>`), dp + "/attrib[name=start_uris]/member[1]", 3},
		{"boolean true", dom(`<attrib name="robots" type="boolean">true</attrib>`), dp + "/attrib[name=robots]", 3},
		{"empty integer", dom(`<attrib name="max_doc" type="integer"> </attrib>`), dp + "/attrib[name=max_doc]", 3},
		{"integer with a fraction", dom(`<attrib name="max_doc" type="integer">1.5</attrib>`), dp + "/attrib[name=max_doc]", 3},
		{"integer over 32 bits", dom(`<attrib name="max_doc" type="integer">2147483648</attrib>`), dp + "/attrib[name=max_doc]", 3},
		{"real that is not a number", dom(`<attrib name="delay" type="real">NaN</attrib>`), dp + "/attrib[name=delay]", 3},
		{"real in hexadecimal", dom(`<attrib name="delay" type="real">0x10p0</attrib>`), dp + "/attrib[name=delay]", 3},
		{"wrong type for a known attrib", dom(`<attrib name="delay" type="integer">60</attrib>`), dp + "/attrib[name=delay]", 3},
		{"wrong type in a section", dom(`<section name="include_domains">` + "\n" + `<attrib name="prefix" type="string">x</attrib></section>`),
			dp + "/section[name=include_domains]/attrib[name=prefix]", 4},
		{"wrong type for a named attrib", dom(`<section name="passwd"><attrib name="http://a/" type="list-string"/></section>`),
			dp + "/section[name=passwd]/attrib[name=http://a/]", 3},
		{"wrong type in a SubDomain", dom(`<SubDomain name="s">` + "\n" + `<attrib name="delay" type="string">1</attrib></SubDomain>`),
			dp + "/SubDomain[name=s]/attrib[name=delay]", 4},
		{"wrong type in a subcollection's rules", dom(`<section name="subdomains"><section name="s"><section name="include_uris">` +
			"\n" + `<attrib name="exact" type="string">x</attrib></section></section></section>`),
			dp + "/section[name=subdomains]/section[name=s]/section[name=include_uris]/attrib[name=exact]", 4},
		{"wrong type in a Node", dom(`<Node name="n"><section name="crawlmode"><attrib name="fwdlinks" type="string">no</attrib></section></Node>`),
			dp + "/Node[name=n]/section[name=crawlmode]/attrib[name=fwdlinks]", 3},
		{"an attrib twice", dom(`<attrib name="delay" type="real">1</attrib>` + "\n" + `<attrib name="delay" type="real">2</attrib>`), dp + "/attrib[name=delay]", 4},
		{"an attrib twice by two spellings", dom(`<attrib name="html_redir_thresh" type="integer">1</attrib>` + "\n" + `<attrib name="hmtl_redir_threshold" type="integer">2</attrib>`),
			dp + "/attrib[name=hmtl_redir_threshold]", 4},
		{"a section twice", dom(`<section name="log"/>` + "\n" + `<section name="log"/>`), dp + "/section[name=log]", 4},
		{"a SubDomain named as a subdomains section", dom(`<section name="subdomains"><section name="s"/></section>` + "\n" + `<SubDomain name="s"/>`),
			dp + "/SubDomain[name=s]", 4},
		{"nested too deep", dom(strings.Repeat(`<section name="x">`, MaxDepth) + strings.Repeat(`</section>`, MaxDepth)), "", 3},
		{"too many XML attributes", dom(`<section name="x"` + attrs(MaxAttrs+1) + `/>`), dp + "/section", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data), "t.xml")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse: %v, want an *Error", err)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if tt.path != "" && !strings.HasPrefix(e.Path, tt.path) {
				t.Errorf("path %q, want %q", e.Path, tt.path)
			}
			if e.Line != tt.line {
				t.Errorf("line %d, want %d (%v)", e.Line, tt.line, err)
			}
		})
	}
}

func attrs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, ` x%d="1"`, i)
	}
	return b.String()
}

func TestParseLimits(t *testing.T) {
	big := make([]byte, MaxSize+1)
	if _, err := Parse(big, "big.xml"); !errors.Is(err, ErrInvalid) {
		t.Errorf("a file over MaxSize: %v, want ErrInvalid", err)
	}
	var b strings.Builder
	b.WriteString(`<CrawlerConfig><DomainSpecification name="d"><attrib name="start_uris" type="list-string">`)
	b.WriteString(strings.Repeat(`<member/>`, MaxElements))
	b.WriteString(`</attrib></DomainSpecification></CrawlerConfig>`)
	if _, err := Parse([]byte(b.String()), "many.xml"); !errors.Is(err, ErrInvalid) {
		t.Errorf("more than MaxElements elements: %v, want ErrInvalid", err)
	}
	ok := strings.Repeat(`<section name="x">`, MaxDepth-2) + strings.Repeat(`</section>`, MaxDepth-2)
	if _, err := Parse([]byte(`<CrawlerConfig><DomainSpecification name="d">`+ok+`</DomainSpecification></CrawlerConfig>`), "deep.xml"); err != nil {
		t.Errorf("nesting of MaxDepth: %v", err)
	}
}

func TestEscapeBareAmpersands(t *testing.T) {
	tests := []struct{ in, want string }{
		{`<a>x&y</a>`, `<a>x&amp;y</a>`},
		{`<a>x&amp;y &lt; &gt; &apos; &quot; &#38; &#x26;</a>`, `<a>x&amp;y &lt; &gt; &apos; &quot; &#38; &#x26;</a>`},
		{`<a>&nbsp; &#; &#x; &#12</a>`, `<a>&amp;nbsp; &amp;#; &amp;#x; &amp;#12</a>`},
		{`<a b="p?x=1&y=2">`, `<a b="p?x=1&amp;y=2">`},
		{`<!-- a & b --><![CDATA[c & d]]><?pi e & f?>&`, `<!-- a & b --><![CDATA[c & d]]><?pi e & f?>&amp;`},
		{`<!-- unclosed & `, `<!-- unclosed & `},
		{"line\n&\nline", "line\n&amp;\nline"},
	}
	for _, tt := range tests {
		if got := string(escapeBareAmpersands([]byte(tt.in))); got != tt.want {
			t.Errorf("escapeBareAmpersands(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDomain(t *testing.T) {
	two, err := Parse([]byte(`<CrawlerConfig><DomainSpecification name="a"/><DomainSpecification name="b"/></CrawlerConfig>`), "two.xml")
	if err != nil {
		t.Fatal(err)
	}
	one, err := Parse([]byte(`<CrawlerConfig><DomainSpecification name="only "/></CrawlerConfig>`), "one.xml")
	if err != nil {
		t.Fatal(err)
	}
	none, err := Parse([]byte(`<CrawlerConfig/>`), "none.xml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    *File
		pick string
		want string // the name picked; "" for an error
	}{
		{"the only one", one, "", "only"},
		{"the only one by name", one, " only", "only"},
		{"one of two", two, "b", "b"},
		{"two without a name", two, "", ""},
		{"no such name", two, "c", ""},
		{"none", none, "", ""},
		{"none by name", none, "a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := tt.f.Domain(tt.pick)
			if tt.want == "" {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("Domain(%q) = %v, %v; want ErrInvalid", tt.pick, d, err)
				}
				if len(tt.f.Domains) > 1 && !strings.Contains(err.Error(), `"a", "b"`) {
					t.Errorf("error %q does not list the names", err)
				}
				return
			}
			if err != nil || d.Name != tt.want {
				t.Fatalf("Domain(%q) = %v, %v; want %s", tt.pick, d, err, tt.want)
			}
		})
	}
}
