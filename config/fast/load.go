package fast

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/amber-crawler/amber/config"
)

// Load reads the FAST crawler configuration at path and converts it (ConvertFile).
func Load(path, domain string, strict bool) (*config.File, *config.Converted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("fast: %w", err)
	}
	_, cv, err := ConvertFile(data, path, domain, strict)
	if err != nil {
		return nil, nil, err
	}
	return cv.File, cv, nil
}

// ConvertFile parses data, the FAST crawler configuration read from path, picks its
// DomainSpecification named domain ("" when it has one only) and converts it (Convert, with
// start_uri_files read relative to path's directory). It returns the DomainSpecification and
// the conversion, whose Notes say what amber does differently.
func ConvertFile(data []byte, path, domain string, strict bool) (*Domain, *config.Converted, error) {
	f, err := Parse(data, path)
	if err != nil {
		return nil, nil, err
	}
	d, err := f.Domain(domain)
	if err != nil {
		return nil, nil, err
	}
	cv, err := d.Convert(ConvertOptions{Strict: strict, BaseDir: filepath.Dir(path)})
	if err != nil {
		return nil, nil, err
	}
	return d, cv, nil
}

// elasticHeader is the first line config.Converted.Render writes, which names the Elastic
// crawler.
var elasticHeader = []byte("# amber crawl config converted from the Elastic Open Crawler file ")

// Render is config.Converted.Render for a FAST conversion: the YAML with each key commented
// with the FAST attrib it came from, then the account of the conversion (cv.Account, when it
// has one: Convert's always does) with every attrib, section and element of the file under
// one of five headings (mapped, the same as amber's behaviour, differs, ignored, refused) and
// the notes about what the file leaves out, under a first line that names source (the XML
// file and its DomainSpecification, say) as a FAST crawler configuration; without an account,
// the notes. Like the
// credentials, the logins' parameters are written as env: references (AMBER_LOGIN_n_NAME),
// each listed with the attrib it stands for, so that the rendering holds no secret.
func Render(cv *config.Converted, source string) ([]byte, error) {
	cp := *cv
	cfg := *cv.File
	cp.File = &cfg
	var secrets []string
	if cv.File.Logins != nil {
		cfg.Logins = slices.Clone(cv.File.Logins)
		for i, l := range cfg.Logins {
			if l.Parameters == nil {
				continue
			}
			params := make(map[string]config.Secret, len(l.Parameters))
			used := map[string]bool{}
			for _, name := range slices.Sorted(maps.Keys(l.Parameters)) {
				v := l.Parameters[name]
				if _, env := v.Env(); env {
					params[name] = v
					continue
				}
				ev := loginEnvName(i, name, used)
				params[name] = config.Secret("env:" + ev)
				from := cmp.Or(cv.Sources[fmt.Sprintf("logins[%d]", i)], fmt.Sprintf("logins[%d]", i))
				secrets = append(secrets, fmt.Sprintf("%s: the value of %s/parameters/%s", ev, from, quoteName(name)))
			}
			cfg.Logins[i].Parameters = params
		}
	}
	if cv.File.PostPayloads != nil {
		cfg.PostPayloads, secrets = postBodySecrets(cv.File.PostPayloads, secrets)
	}
	if cv.File.Subcollections != nil {
		cfg.Subcollections, secrets = subSecrets(cv.File.Subcollections, cv.Sources, secrets)
	}
	if cv.Account != nil {
		cp.Notes = nil // the account says them, and its notes the others
	}
	out, err := cp.Render(source)
	if err != nil {
		return nil, err
	}
	line, rest, ok := bytes.Cut(out, []byte("\n"))
	if !ok || !bytes.HasPrefix(line, elasticHeader) {
		return nil, fmt.Errorf("fast: config.Converted.Render's first line is not the one Render replaces: %q", line)
	}
	head := fmt.Sprintf("# amber crawl config converted from the FAST crawler configuration (MS-FSCCFG) %s.\n", source)
	if cv.Account != nil {
		head += "# At the end: what amber makes of every attrib, section and element of the file.\n"
	}
	out = addSecrets(append([]byte(head), rest...), secrets)
	if cv.Account != nil {
		out = append(out, renderAccount(cv.Account)...)
	}
	return out, nil
}

// secretsHead starts the list of environment variables config.Converted.Render writes.
const secretsHead = "\n# Secrets: this file holds none. Set these environment variables before amber crawl\n" +
	"# (or write the value in place of its env: reference, and keep the file private):\n"

// addSecrets adds lines to the list of environment variables of a rendering, which it starts
// (before the notes) when the rendering has none.
func addSecrets(out []byte, lines []string) []byte {
	if len(lines) == 0 {
		return out
	}
	var add bytes.Buffer
	for _, l := range lines {
		add.WriteString("# - " + l + "\n")
	}
	at := bytes.Index(out, []byte(secretsHead))
	if at < 0 {
		at = bytes.Index(out, []byte("\n# What amber does differently:\n"))
		if at < 0 {
			at = len(out)
		}
		return slices.Concat(out[:at], []byte(secretsHead), add.Bytes(), out[at:])
	}
	// After the list's last line.
	end := at + len(secretsHead)
	for bytes.HasPrefix(out[end:], []byte("# - ")) {
		nl := bytes.IndexByte(out[end:], '\n')
		if nl < 0 {
			end = len(out)
			break
		}
		end += nl + 1
	}
	return slices.Concat(out[:end], add.Bytes(), out[end:])
}

// postBodySecrets returns the post_payloads with each body as an env: reference,
// AMBER_POST_i_BODY (a body that is one already is kept), and secrets with a line for each.
func postBodySecrets(ps []config.PostPayloadSpec, secrets []string) ([]config.PostPayloadSpec, []string) {
	ps = slices.Clone(ps)
	for i, p := range ps {
		if strings.HasPrefix(p.Body, "env:") {
			continue
		}
		ev := fmt.Sprintf("AMBER_POST_%d_BODY", i)
		ps[i].Body = "env:" + ev
		name := p.URL
		if p.Prefix != "" {
			name = "prefix:" + p.Prefix
		}
		secrets = append(secrets, fmt.Sprintf("%s: the body of post_payload/%s", ev, quoteName(name)))
	}
	return ps, secrets
}

// loginEnvName names the environment variable of login i's parameter name:
// AMBER_LOGIN_i_NAME, NAME upper-cased with every other character than a letter or digit as
// _, and a number added when two parameters come out alike.
func loginEnvName(i int, name string, used map[string]bool) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(name) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	base := fmt.Sprintf("AMBER_LOGIN_%d_%s", i, b.String())
	ev := base
	for n := 2; used[ev]; n++ {
		ev = fmt.Sprintf("%s_%d", base, n)
	}
	used[ev] = true
	return ev
}
