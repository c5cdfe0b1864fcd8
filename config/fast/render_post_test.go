package fast

import (
	"strings"
	"testing"

	"github.com/amber-crawler/amber/config"
)

// TestRenderPostSecrets: a rendering holds no POST body: each is an env: reference,
// AMBER_POST_i_BODY, listed under Secrets with the attrib it stands for, after the login
// parameters; a body that is an env: reference already is kept; the conversion itself keeps
// the bodies (amber crawl --config uses them as given).
func TestRenderPostSecrets(t *testing.T) {
	tests := []struct {
		name    string
		cfg     *config.File
		want    []string // lines, in order
		secrets []string // values the rendering must not hold
	}{
		{"bodies", &config.File{PostPayloads: []config.PostPayloadSpec{
			{URL: "http://a.example.com/search", Body: "q=secret1"},
			{Prefix: "http://a.example.com/s/", Body: "token=secret2"},
			{URL: "http://a.example.com/x", Body: "env:MY_BODY"},
		}},
			[]string{"    body: env:AMBER_POST_0_BODY", "    body: env:AMBER_POST_1_BODY", "    body: env:MY_BODY",
				strings.Trim(secretsHead, "\n"),
				`# - AMBER_POST_0_BODY: the body of post_payload/"http://a.example.com/search"`,
				`# - AMBER_POST_1_BODY: the body of post_payload/"prefix:http://a.example.com/s/"`,
				"", "# What amber does differently:"},
			[]string{"secret1", "secret2"}},
		{"after the login parameters", &config.File{
			Logins:       []config.LoginSpec{{Name: "l", Form: "https://a.example.com/login", Parameters: map[string]config.Secret{"pass": "pw1"}}},
			PostPayloads: []config.PostPayloadSpec{{URL: "http://a.example.com/search", Body: "q=secret1"}}},
			[]string{"# - AMBER_LOGIN_0_PASS: the value of Login[l]/parameters/pass",
				`# - AMBER_POST_0_BODY: the body of post_payload/"http://a.example.com/search"`},
			[]string{"pw1", "secret1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			renderSecrets(t, tt.cfg, tt.want, tt.secrets)
			if !strings.HasSuffix(tt.cfg.PostPayloads[0].Body, "secret1") {
				t.Errorf("Render changed the conversion's body: %q", tt.cfg.PostPayloads[0].Body)
			}
		})
	}
}
