package login

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseForms(t *testing.T) {
	const page = "https://Login.example.org/account/login.html?x=1"
	tests := []struct {
		name string
		html string
		want []Form
	}{
		{name: "hidden CSRF field", html: `<form method=post action="/session">
			<input type=hidden name=csrf value="tok+/=">
			<input name=user><input type=password name=pass value="">
			<input type=submit value="Log in"></form>`,
			want: []Form{{Action: "https://login.example.org/session", Method: "POST", HasPassword: true,
				Fields: []Field{{"csrf", "tok+/="}, {"user", ""}, {"pass", ""}}}}},
		{name: "relative action", html: `<form action="../do/login.cgi?lang=en#top"><input name=u></form>`,
			want: []Form{{Action: "https://login.example.org/do/login.cgi?lang=en", Method: "GET", Fields: []Field{{"u", ""}}}}},
		{name: "base href", html: `<head><base href="https://auth.example.org/sso/"></head><form action="check"></form>`,
			want: []Form{{Action: "https://auth.example.org/sso/check", Method: "GET"}}},
		{name: "no action: the page itself", html: `<form method=POST name=f id=g></form>`,
			want: []Form{{Name: "f", ID: "g", Action: "https://login.example.org/account/login.html?x=1", Method: "POST"}}},
		{name: "empty action", html: `<form action=" " method=dialog></form>`,
			want: []Form{{Action: "https://login.example.org/account/login.html?x=1", Method: "GET"}}},
		{name: "select defaults", html: `<form>
			<select name=lang><option value=de>Deutsch<option value=en selected>English</select>
			<select name=site><option>  Main   site </option><option>Other</select>
			<select name=skip><option disabled>x<option value=y>y</select>
			<select name=multi multiple><option value=a>a<option value=b>b</select>
			<select name=multi2 multiple><option value=a selected>a<option value=b selected>b</select>
			<select name=grouped><optgroup label=g><option value=g1>g1</optgroup></select>
			<select name=off disabled><option value=o>o</select>
			</form>`,
			want: []Form{{Action: noAction, Method: "GET", Fields: []Field{{"lang", "en"}, {"site", "Main site"}, {"skip", "y"},
				{"multi2", "a"}, {"multi2", "b"}, {"grouped", "g1"}}}}},
		{name: "checkbox and radio", html: `<form>
			<input type=checkbox name=remember checked>
			<input type=checkbox name=news value=yes>
			<input type=checkbox name=terms value=accepted checked>
			<input type=radio name=mode value=a><input type=radio name=mode value=b checked>
			</form>`,
			want: []Form{{Action: noAction, Method: "GET", Fields: []Field{{"remember", "on"}, {"terms", "accepted"}, {"mode", "b"}}}}},
		{name: "skipped controls", html: `<form>
			<input name=off value=x disabled><input value=noname><input type=file name=f>
			<input type=reset name=r><input type=image name=i src=x.png><input type=button name=b value=b>
			<textarea name=note>
line</textarea><input type=email name=mail value=a@b.c>
			</form>`,
			want: []Form{{Action: noAction, Method: "GET", Fields: []Field{{"note", "line"}, {"mail", "a@b.c"}}}}},
		{name: "first named submit button", html: `<form>
			<input type=submit value=unnamed><button name=go value=1>Go</button><input type=submit name=other value=2>
			</form>`,
			want: []Form{{Action: noAction, Method: "GET", Submitter: &Field{"go", "1"}}}},
		{name: "button type=button is no submitter", html: `<form><button type=button name=x>x</button><input type=submit name=s value=S></form>`,
			want: []Form{{Action: noAction, Method: "GET", Submitter: &Field{"s", "S"}}}},
		{name: "multiple forms", html: `<form name=search action=/search><input name=q></form>
			<form name=login action=/login method=post><input name=user><input type=password name=pw></form>`,
			want: []Form{
				{Name: "search", Action: "https://login.example.org/search", Method: "GET", Fields: []Field{{"q", ""}}},
				{Name: "login", Action: "https://login.example.org/login", Method: "POST", HasPassword: true, Fields: []Field{{"user", ""}, {"pw", ""}}},
			}},
		{name: "no form", html: `<p>hello</p>`},
		{name: "enctypes", html: `<form method=post enctype="Multipart/Form-Data"></form><form method=post enctype=text/plain></form>
			<form method=post enctype=application/json></form>`,
			want: []Form{{Action: noAction, Method: "POST", Enctype: EnctypeMultipart}, {Action: noAction, Method: "POST", Enctype: EnctypeTextPlain},
				{Action: noAction, Method: "POST"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseForms(page, []byte(tt.html))
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				if tt.want[i].Enctype == "" {
					tt.want[i].Enctype = EnctypeURLEncoded // without an enctype, or another one
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseForms (-want +got):\n%s", diff)
			}
		})
	}
}

// noAction is the action of a form without one on the test page: the page, normalised.
const noAction = "https://login.example.org/account/login.html?x=1"

func TestFill(t *testing.T) {
	form := Form{Fields: []Field{{"csrf", "t1"}, {"user", "default"}, {"pass", ""}, {"tag", "a"}, {"tag", "b"}},
		Submitter: &Field{"go", "Log in"}}
	tests := []struct {
		name   string
		form   Form
		params []Field
		want   []Field
	}{
		{name: "overlay keeps hidden fields", form: form, params: []Field{{"user", "alice"}, {"pass", "s3cret"}},
			want: []Field{{"csrf", "t1"}, {"user", "alice"}, {"pass", "s3cret"}, {"tag", "a"}, {"tag", "b"}, {"go", "Log in"}}},
		{name: "parameter overrides a hidden field", form: form, params: []Field{{"csrf", "mine"}},
			want: []Field{{"csrf", "mine"}, {"user", "default"}, {"pass", ""}, {"tag", "a"}, {"tag", "b"}, {"go", "Log in"}}},
		{name: "repeated name set once", form: form, params: []Field{{"tag", "c"}},
			want: []Field{{"csrf", "t1"}, {"user", "default"}, {"pass", ""}, {"tag", "c"}, {"go", "Log in"}}},
		{name: "missing parameter added, unchecked checkbox checked", form: form, params: []Field{{"remember", "on"}, {"lang", "en"}},
			want: []Field{{"csrf", "t1"}, {"user", "default"}, {"pass", ""}, {"tag", "a"}, {"tag", "b"}, {"go", "Log in"}, {"remember", "on"}, {"lang", "en"}}},
		{name: "submitter value set", form: form, params: []Field{{"go", "Sign in"}},
			want: []Field{{"csrf", "t1"}, {"user", "default"}, {"pass", ""}, {"tag", "a"}, {"tag", "b"}, {"go", "Sign in"}}},
		{name: "empty form", form: Form{}, params: []Field{{"u", "x"}}, want: []Field{{"u", "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.form.Fill(tt.params)); diff != "" {
				t.Errorf("Fill (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPick(t *testing.T) {
	search := Form{Name: "search", Action: "https://a.test/search", Fields: []Field{{"q", ""}}}
	login := Form{Name: "login", Action: "https://a.test/login", HasPassword: true, Fields: []Field{{"user", ""}, {"pw", ""}}}
	other := Form{Name: "other", Action: "https://a.test/other", HasPassword: true}
	pin := Form{Name: "pin", Action: "https://a.test/pin", Fields: []Field{{"account", ""}, {"pin", ""}}}
	tests := []struct {
		name   string
		forms  []Form
		action string
		params []Field
		want   string // the name of the form picked; "" for none
	}{
		{name: "by action", forms: []Form{search, login, other}, action: "https://a.test/other", want: "other"},
		{name: "by action spelled otherwise", forms: []Form{search, login}, action: "HTTPS://A.TEST/login#x", want: "login"},
		{name: "action not on the page", forms: []Form{search, login}, action: "https://a.test/nope"},
		{name: "first with a password", forms: []Form{search, login, other}, want: "login"},
		{name: "by parameter names", forms: []Form{search, pin}, params: []Field{{"account", "1"}, {"pin", "2"}}, want: "pin"},
		{name: "the only form", forms: []Form{search}, params: []Field{{"user", "x"}}, want: "search"},
		{name: "several, none fits", forms: []Form{search, pin}, params: []Field{{"user", "x"}}},
		{name: "no forms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := pick(tt.forms, tt.action, tt.params)
			if got := f.Name; got != tt.want || ok != (tt.want != "") {
				t.Errorf("pick = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		fields []Field
		want   string
	}{
		{[]Field{{"b", "2"}, {"a", "1"}}, "b=2&a=1"},
		{[]Field{{"csrf", "tok+/="}, {"user name", "ä b&c"}}, "csrf=tok%2B%2F%3D&user+name=%C3%A4+b%26c"},
		{[]Field{{"x", ""}, {"x", "y"}}, "x=&x=y"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := Encode(tt.fields); got != tt.want {
			t.Errorf("Encode(%v) = %q, want %q", tt.fields, got, tt.want)
		}
	}
}

// FuzzParseForms: any page parses without panicking, into forms with a URL as action.
func FuzzParseForms(f *testing.F) {
	f.Add(`<form method=post action="/s"><input type=hidden name=csrf value=t><select name=a><option>x</select></form>`)
	f.Add(`<base href="//h/"><form action="?q#f"><textarea name=t>x</textarea><button name=b>`)
	f.Fuzz(func(t *testing.T, page string) {
		forms, err := ParseForms("https://a.test/p/", []byte(page))
		if err != nil {
			return
		}
		for _, fm := range forms {
			if u, err := url.Parse(fm.Action); err != nil || u.Fragment != "" {
				t.Errorf("action %q: %v", fm.Action, err)
			}
			if fm.Method != "GET" && fm.Method != "POST" {
				t.Errorf("method %q", fm.Method)
			}
		}
	})
}
