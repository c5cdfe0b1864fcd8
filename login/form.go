package login

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Form is an HTML form as a browser would submit it untouched.
type Form struct {
	Name, ID string
	// Action is the absolute URL the form is submitted to: its action attribute resolved
	// against the page (and its <base href>), the page itself when it has none. Without a
	// fragment.
	Action string
	// Method is GET or POST (the method attribute; GET when absent or unknown, as HTML says).
	Method string
	// Enctype is how a POST submits the fields (the enctype attribute, as HTML reads it):
	// EnctypeMultipart, EnctypeTextPlain, or EnctypeURLEncoded when absent or another value.
	Enctype string
	// Fields are the form's successful controls in document order, with their default
	// values: text-like and hidden inputs, checked checkboxes and radio buttons (value "on"
	// when they have none), the selected options of each select (the first option of a
	// single select with none selected), textareas. Disabled and unnamed controls, file,
	// reset, image and button controls are left out.
	Fields []Field
	// Submitter is the form's first named submit button (input type=submit, or button
	// with no type or type=submit) as a field, sent as a browser sends the button that
	// submits the form when Enter is pressed; nil without one.
	Submitter *Field
	// HasPassword tells whether the form has a password input.
	HasPassword bool
}

// Field is one name=value pair of a form submission.
type Field struct {
	Name, Value string
}

// ParseForms returns the forms of an HTML page at pageURL, in document order.
func ParseForms(pageURL string, body []byte) ([]Form, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil, err
	}
	if b := findBase(doc); b != "" {
		if bu, err := base.Parse(b); err == nil {
			base = bu
		}
	}
	var forms []Form
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Form {
			forms = append(forms, readForm(n, base))
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return forms, nil
}

// findBase returns the href of the document's first <base href>, "" if none.
func findBase(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Base {
		if h, ok := attr(n, "href"); ok {
			return strings.TrimSpace(h)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if h := findBase(c); h != "" {
			return h
		}
	}
	return ""
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func hasAttr(n *html.Node, name string) bool {
	_, ok := attr(n, name)
	return ok
}

// readForm reads a form element.
func readForm(n *html.Node, base *url.URL) Form {
	f := Form{Method: "GET"}
	f.Name, _ = attr(n, "name")
	f.ID, _ = attr(n, "id")
	if m, _ := attr(n, "method"); strings.EqualFold(strings.TrimSpace(m), "post") {
		f.Method = "POST"
	}
	e, _ := attr(n, "enctype")
	f.Enctype = formEnctype(e)
	action := base.String()
	if a, ok := attr(n, "action"); ok && strings.TrimSpace(a) != "" {
		if au, err := base.Parse(strings.TrimSpace(a)); err == nil {
			action = au.String()
		}
	}
	f.Action = normalURL(action)
	var walk func(c *html.Node)
	walk = func(c *html.Node) {
		if c.Type == html.ElementNode {
			if c.DataAtom == atom.Input && strings.EqualFold(inputType(c), "password") {
				f.HasPassword = true
			}
			if f.control(c) {
				return
			}
		}
		for k := c.FirstChild; k != nil; k = k.NextSibling {
			walk(k)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c)
	}
	return f
}

func inputType(n *html.Node) string {
	t, _ := attr(n, "type")
	t = strings.ToLower(strings.TrimSpace(t))
	if t == "" {
		return "text"
	}
	return t
}

// control adds the field(s) of a form control to f; it reports whether n was a control
// (whose children need no walk).
func (f *Form) control(n *html.Node) bool {
	name, _ := attr(n, "name")
	switch n.DataAtom {
	case atom.Input:
		if name == "" || hasAttr(n, "disabled") {
			return true
		}
		value, hasValue := attr(n, "value")
		switch inputType(n) {
		case "checkbox", "radio":
			if hasAttr(n, "checked") {
				if !hasValue {
					value = "on"
				}
				f.Fields = append(f.Fields, Field{name, value})
			}
		case "submit":
			if f.Submitter == nil {
				f.Submitter = &Field{name, value}
			}
		case "file", "reset", "image", "button":
		default:
			f.Fields = append(f.Fields, Field{name, value})
		}
		return true
	case atom.Button:
		t, _ := attr(n, "type")
		t = strings.ToLower(strings.TrimSpace(t))
		if name != "" && !hasAttr(n, "disabled") && (t == "" || t == "submit") && f.Submitter == nil {
			value, _ := attr(n, "value")
			f.Submitter = &Field{name, value}
		}
		return true
	case atom.Select:
		if name == "" || hasAttr(n, "disabled") {
			return true
		}
		var options []*html.Node
		var collect func(c *html.Node)
		collect = func(c *html.Node) {
			if c.Type == html.ElementNode && c.DataAtom == atom.Option {
				options = append(options, c)
				return
			}
			for k := c.FirstChild; k != nil; k = k.NextSibling {
				collect(k)
			}
		}
		collect(n)
		selected := 0
		for _, o := range options {
			if hasAttr(o, "selected") && !hasAttr(o, "disabled") {
				f.Fields = append(f.Fields, Field{name, optionValue(o)})
				selected++
			}
		}
		if selected == 0 && !hasAttr(n, "multiple") {
			for _, o := range options {
				if !hasAttr(o, "disabled") {
					f.Fields = append(f.Fields, Field{name, optionValue(o)})
					break
				}
			}
		}
		return true
	case atom.Textarea:
		if name != "" && !hasAttr(n, "disabled") {
			f.Fields = append(f.Fields, Field{name, strings.TrimPrefix(text(n), "\n")})
		}
		return true
	}
	return false
}

// optionValue is an option's value attribute, or its text with white space collapsed.
func optionValue(o *html.Node) string {
	if v, ok := attr(o, "value"); ok {
		return v
	}
	return strings.Join(strings.Fields(text(o)), " ")
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(c *html.Node)
	walk = func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		for k := c.FirstChild; k != nil; k = k.NextSibling {
			walk(k)
		}
	}
	walk(n)
	return b.String()
}

// Fill returns the fields f submits with params set: the form's fields and its submitter,
// each parameter replacing the value of the first field of its name (the other fields of
// that name are dropped), parameters the form lacks added at the end in the order of
// names. Parameter values win over the form's (FAST: a configured value overrides any
// value stored in the form).
func (f Form) Fill(params []Field) []Field {
	fields := append([]Field(nil), f.Fields...)
	if f.Submitter != nil {
		fields = append(fields, *f.Submitter)
	}
	return overlay(fields, params)
}

// overlay sets params into fields as Fill describes.
func overlay(fields, params []Field) []Field {
	out := make([]Field, 0, len(fields)+len(params))
	set := map[string]string{}
	for _, p := range params {
		set[p.Name] = p.Value
	}
	used := map[string]bool{}
	for _, fl := range fields {
		v, ok := set[fl.Name]
		switch {
		case !ok:
			out = append(out, fl)
		case !used[fl.Name]:
			used[fl.Name] = true
			out = append(out, Field{fl.Name, v})
		}
	}
	for _, p := range params {
		if !used[p.Name] {
			used[p.Name] = true
			out = append(out, p)
		}
	}
	return out
}

// Encode writes fields as application/x-www-form-urlencoded, in their order.
func Encode(fields []Field) string {
	var b strings.Builder
	for i, fl := range fields {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(fl.Name))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(fl.Value))
	}
	return b.String()
}

// pick chooses the login form among forms: the one submitted to action when action is set;
// else the first with a password input; else the one with the most fields named by params;
// else the only form. ok is false when none fits.
func pick(forms []Form, action string, params []Field) (Form, bool) {
	if action != "" {
		want := normalURL(action)
		for _, f := range forms {
			if f.Action == want {
				return f, true
			}
		}
		return Form{}, false
	}
	for _, f := range forms {
		if f.HasPassword {
			return f, true
		}
	}
	best, bestN := -1, 0
	for i, f := range forms {
		names := map[string]bool{}
		for _, fl := range f.Fields {
			names[fl.Name] = true
		}
		n := 0
		for _, p := range params {
			if names[p.Name] {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	if best >= 0 {
		return forms[best], true
	}
	if len(forms) == 1 {
		return forms[0], true
	}
	return Form{}, false
}
