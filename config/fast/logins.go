package fast

import (
	"fmt"
	"strings"
	"time"

	"github.com/amber-crawler/amber/config"
)

// logins maps the Login elements and the sections of the logins section (§2.2.4.31,
// §2.2.6) onto logins, one entry each, in file order (the section's first): name, preload,
// scheme, site, form, html_form, autofill, sites, ttl and relogin_if_failed keep their
// names, action becomes method and the parameters section parameters. A form login keeps its
// session in cookies, so a file with logins turns cookies on. login_timeout and
// login_failed_ignore are accounted for in dependent.
func (c *conv) logins() {
	type one struct {
		s     *Section
		short string
	}
	var list []one
	if s := c.secs["logins"]; s != nil {
		c.mapped(s, "logins")
		for _, x := range s.Sections {
			list = append(list, one{x, "logins/" + quoteName(x.Name)})
		}
	}
	for _, x := range c.d.Logins {
		list = append(list, one{x, "Login[" + x.Name + "]"})
	}
	node := elements["Login"].node
	for _, l := range list {
		i := len(c.c.Logins)
		key := fmt.Sprintf("logins[%d]", i)
		c.mapped(l.s, key)
		spec := config.LoginSpec{Name: l.s.Name}
		var first *Attrib // the login's first attrib, for errors about the whole login
		for _, a := range l.s.Attribs {
			r := node.attrib(a.Name)
			if r == nil {
				continue // unknown here: the account notes it
			}
			if first == nil {
				first = a
			}
			v := strings.TrimSpace(a.Text)
			field := r.Name
			switch r.Name {
			case "preload":
				spec.Preload = v
			case "scheme":
				spec.Scheme = v
			case "site":
				spec.Site = v
			case "form":
				spec.Form = v
			case "action":
				spec.Method = strings.ToUpper(v)
				field = "method"
			case "html_form":
				spec.HTMLForm = v
			case "autofill":
				spec.Autofill = a.Bool
			case "relogin_if_failed":
				spec.ReloginIfFailed = a.Bool
			case "sites":
				spec.Sites = a.Members
			case "ttl":
				if a.Int < 0 {
					c.invalid(a, "ttl %d: want seconds, 0 or more", a.Int)
					continue
				}
				spec.TTL = config.LoginTTL(time.Duration(a.Int) * time.Second)
			}
			c.mapped(a, key+"."+field)
			if r.Note != "" {
				c.note(noteDiffers, r.Note, a)
			}
		}
		c.loginParameters(l.s, &spec, key)
		// The login's checks, without its secrets: parameters are values here, never env:
		// references to resolve.
		check := &config.File{Logins: []config.LoginSpec{spec}}
		if _, err := check.LoginSpecs(func(string) (string, bool) { return "", true }); err != nil {
			at := first
			if at == nil {
				c.errs = append(c.errs, &Error{File: c.d.File, Line: l.s.Line, Path: l.s.Path, Err: ErrInvalid, Msg: fmt.Sprintf("%s: %v", l.short, err)})
				continue
			}
			c.invalid(at, "%s: %v", l.short, err)
			continue
		}
		c.c.Logins = append(c.c.Logins, spec)
		c.src(fmt.Sprintf("logins[%d]", i), l.short)
	}
	if len(c.c.Logins) > 0 && (c.c.Cookies == nil || !*c.c.Cookies) {
		on := true
		c.c.Cookies = &on
		c.src("cookies", "the logins (a form login keeps its session in cookies)")
		if a := c.top["use_cookies"]; a != nil {
			c.items = append(c.items, item{status: noteDiffers, what: c.what(a), line: a.Line, path: a.Path,
				why: "the file has form logins, whose sessions are cookies: amber keeps the cookies sites set (cookies: true)"})
		}
	}
}

// loginParameters maps the parameters section of login section l into spec, the login at key.
func (c *conv) loginParameters(l *Section, spec *config.LoginSpec, key string) {
	for _, x := range l.Sections {
		if x.Name != "parameters" {
			continue // unknown here: the account notes it
		}
		c.mapped(x, key+".parameters")
		for _, a := range x.Attribs {
			if spec.Parameters == nil {
				spec.Parameters = map[string]config.Secret{}
			}
			spec.Parameters[a.Name] = config.Secret(a.Text)
			c.mapped(a, key+".parameters."+a.Name)
		}
	}
}
