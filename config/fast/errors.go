package fast

import (
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/retry"
)

// whyIndexActions says why DELETE and KEEP of http_errors are ignored.
const whyIndexActions = "DELETE and KEEP say what FAST's index does with a document after errors; amber archives every response it gets and deletes nothing"

// fastRetryDefaults are the retries of FAST's defaults for http_errors (§2.2.4.12): RETRY
// only for net; the others are not tried again in the same cycle.
var fastRetryDefaults = []struct{ cond, fast string }{
	{"4XX", "DELETE:0"}, {"5XX", "DELETE:10"}, {"int", "KEEP:0"}, {"net", "DELETE:3, RETRY:1"}, {"ttl", "DELETE:3"},
}

// httpErrors maps the http_errors section onto politeness.retries: each condition (a status
// code with X wildcards, net, ttl, int) is tried again as often as its RETRY:n says, not at
// all without RETRY. DELETE and KEEP act on FAST's index: noted as ignored. The conditions
// of FAST's defaults the file leaves out get their default (net one retry, the others none).
func (c *conv) httpErrors() {
	retries := map[string]int{}
	given := map[string]bool{}
	if s := c.secs["http_errors"]; s != nil {
		c.mapped(s, "politeness.retries")
		for _, a := range s.Attribs {
			cond, err := retry.ParseCondition(a.Name)
			if err != nil {
				c.note(string(Unsupported), "not a status code (X a wildcard digit: 4xx, 50X), net, ttl or int; amber ignores it", a)
				continue
			}
			if given[cond] {
				c.invalid(a, "condition %s given twice", cond)
				continue
			}
			n, index, ok := parseErrorActions(a.Text)
			if !ok {
				c.invalid(a, "want KEEP[:n], DELETE[:n] and RETRY[:n], separated by commas")
				continue
			}
			given[cond] = true
			retries[cond] = n
			c.src("politeness.retries."+cond, c.short[a])
			c.mapped(a, "politeness.retries."+cond)
			if index {
				c.note(string(Ignored), whyIndexActions+" (RETRY is followed)", a)
			}
		}
	}
	for _, d := range fastRetryDefaults {
		if given[d.cond] {
			continue
		}
		n, _, _ := parseErrorActions(d.fast)
		retries[d.cond] = n
		c.src("politeness.retries."+d.cond, fastDefault("http_errors/"+strings.ToLower(d.cond), d.fast))
	}
	c.c.Politeness.Retries = retries
}

// parseErrorActions reads an http_errors value, "DELETE:10, RETRY:3": the RETRY count (0
// without RETRY; RETRY without a count is one) and whether it holds an index action (DELETE,
// KEEP). ok is false for anything else, or an action given twice.
func parseErrorActions(v string) (retries int, index, ok bool) {
	seen := map[string]bool{}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		word, num, hasNum := strings.Cut(part, ":")
		word = strings.ToUpper(strings.TrimSpace(word))
		n := 1
		if hasNum {
			var err error
			if n, err = strconv.Atoi(strings.TrimSpace(num)); err != nil || n < 0 {
				return 0, false, false
			}
		}
		if seen[word] {
			return 0, false, false
		}
		seen[word] = true
		switch word {
		case "RETRY":
			retries = n
		case "DELETE", "KEEP":
			index = true
		default:
			return 0, false, false
		}
	}
	return retries, index, true
}
