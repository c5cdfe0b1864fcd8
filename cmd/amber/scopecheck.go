package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
)

// checkInput is one candidate read from standard input by `amber scope check`.
type checkInput struct {
	URL         string `json:"url"`
	Hops        string `json:"hops"`
	Via         string `json:"via"`
	ViaHopsOff  int    `json:"via_hops_off"`
	ViaRedirect string `json:"via_redirect"`
	Seed        string `json:"seed"`
	// Addr is the address of the URL's host, for ip rules; without it the host is resolved
	// (unless --no-resolve) when the rules have ip matchers.
	Addr string `json:"addr"`
}

// checkOutput is one decision printed by `amber scope check`.
type checkOutput struct {
	URL       string `json:"url"`
	Canonical string `json:"canonical"`
	// Fetched is the URL the crawl takes for URL when it is not Canonical: rewritten by
	// urls.mirrors or urls.rewrite_rules, its query sorted by urls.sort_query_params
	// (crawl.URLConfig.Fetched). The decision is the one on it, as the crawl's.
	Fetched  string `json:"fetched,omitempty"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	// Suggestion, for a URL left out, is the change to the config that would bring it in
	// (report.Suggestion: a domain or crawl rule to add, a depth to raise), when there is one.
	Suggestion string `json:"suggestion,omitempty"`
	// Addr is the host's address the decision used (only when the rules have ip matchers).
	Addr string `json:"addr,omitempty"`
}

// scopeFlags are the flags of `amber scope check`.
type scopeFlags struct {
	configs             stringList
	flavour, fastDomain string
	strict, noResolve   bool
}

const scopeUsage = "usage: amber scope check --config FILE [--config FILE ...] [--flavour standard|brozzler|elastic] [--fast-domain NAME] [--strict] [--no-resolve] [URL ...]"

func newScopeFlagSet(f *scopeFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("amber scope check", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, help is printed by printScopeHelp
	fs.Var(&f.configs, "config", "crawl config `FILE` (amber YAML, an Elastic Open Crawler file, Enterprise Search settings or a FAST crawler configuration) whose seeds and rules to check against (required; repeatable: the files are combined as by amber crawl)")
	fs.StringVar(&f.fastDomain, "fast-domain", "", "FAST --config: the DomainSpecification `NAME` (needed when the file has several)")
	fs.BoolVar(&f.strict, "strict", false, "FAST --config: an attrib amber does not do as the file says is an error")
	fs.StringVar(&f.flavour, "flavour", "", "standard, brozzler or elastic (default: the config's, else follows the fetcher)")
	fs.BoolVar(&f.noResolve, "no-resolve", false, "with ip rules: do not look hosts up (a URL without an \"addr\" has no address, as a host that does not resolve)")
	return fs
}

// printScopeHelp prints the help of `amber scope check`.
func printScopeHelp(w io.Writer) {
	fmt.Fprintf(w, `%s

Prints, for each URL (arguments, or JSON lines on stdin with "url" and optional "hops", "via",
"via_hops_off", "via_redirect", "seed", "addr"), one JSON line: the canonical URL, "in" or
"out", and the reason, decided with the seeds and rules of the config as the crawl would decide
them. A URL is taken as the crawl takes a URL it finds: when the config's urls section
(mirrors, rewrite_rules, sort_query_params) makes it another URL, that one is printed as
"fetched", and the decision is on it. For a URL left out, a "suggestion" says what would
bring it in, when something would (a domain or crawl rule to add, a depth to raise). When the
rules have ip matchers, each host is looked up as the crawl looks it up (network.connect_to
first), unless the line gives its "addr" or --no-resolve is set, and the address used is
printed ("addr").

Flags:
`, scopeUsage)
	fs := newScopeFlagSet(&scopeFlags{})
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// runScope is `amber scope check`. A missing or bad config, a URL that does not parse and a
// malformed stdin line are usage errors.
func runScope(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) > 0 && isHelpArg(args[0]) {
		printScopeHelp(stdout)
		return nil
	}
	if len(args) == 0 || args[0] != "check" {
		return usagef("%s", scopeUsage)
	}
	var f scopeFlags
	fs := newScopeFlagSet(&f)
	urls, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printScopeHelp(stdout)
		return nil
	}
	if err != nil {
		return usagef("scope check: %w (see 'amber help scope')", err)
	}
	if len(f.configs) == 0 {
		return usagef("scope check: --config is required (see 'amber help scope')")
	}
	k, err := newScopeChecker(f)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if len(urls) > 0 {
		return k.checkURLs(urls, enc)
	}
	return k.checkStdin(ctx, stdin, enc)
}

// scopeChecker decides the candidates of `amber scope check` as the crawl would, with the
// seeds and rules of a config.
type scopeChecker struct {
	sc        scope.Config
	s         *scope.Scope
	urls      crawl.URLConfig                  // the config's urls section: the URL the crawl takes
	firstSeed string                           // canonical: the seed of a candidate without one
	hostAddr  func(string) (netip.Addr, error) // nil: no ip rules, or --no-resolve
}

// newScopeChecker builds the checker of the config the flags name (loadScope), which looks
// hosts up when the rules have ip matchers and --no-resolve is not set. Its errors are
// usage errors.
func newScopeChecker(f scopeFlags) (*scopeChecker, error) {
	sc, s, urls, connectTo, err := loadScope(f)
	if err != nil {
		return nil, usageError{err}
	}
	k := &scopeChecker{sc: sc, s: s, urls: urls}
	if s.NeedsAddr() && !f.noResolve {
		k.hostAddr = fetch.NewResolver(connectTo, 0).URLAddr
	}
	if k.firstSeed, err = scope.Canonicalize(sc.Seeds[0].URL, sc.Flavour); err != nil {
		return nil, usagef("seed %q: %w", sc.Seeds[0].URL, err)
	}
	return k, nil
}

// check decides one candidate: the URL the crawl takes for it (crawl.URLConfig.Fetched,
// printed as fetched when it is not the canonical URL), hops L, the first seed and via the
// seed unless in says otherwise, and the address of in, else the host's looked up (none when
// it does not resolve). A URL of a scheme other than http(s), or rewritten into one, is out
// (scope.ReasonScheme); a URL that does not parse otherwise (or is rewritten into one that
// does not), and a bad seed, via, via_redirect or addr, are errors.
func (k *scopeChecker) check(in checkInput) (checkOutput, error) {
	out := checkOutput{URL: in.URL, Decision: "out"}
	flavour := k.sc.Flavour
	fetched, _, err := k.urls.Fetched(in.URL, flavour)
	canon, cerr := scope.Canonicalize(in.URL, flavour)
	if cerr != nil {
		canon = strings.TrimSpace(in.URL)
	}
	out.Canonical = canon
	if err != nil {
		target, rewritten := k.urls.Rewrite.Apply(in.URL)
		if rewritten {
			out.Fetched = strings.TrimSpace(target)
		}
		if otherScheme(target) {
			out.Reason = scope.ReasonScheme
			return out, nil
		}
		if rewritten {
			return out, fmt.Errorf("url %q, rewritten to %q: %w", in.URL, target, err)
		}
		return out, fmt.Errorf("url %q: %w", in.URL, err)
	}
	if fetched != canon {
		out.Fetched = fetched
	}
	c := scope.Candidate{URL: fetched, Hops: in.Hops, ViaHopsOff: in.ViaHopsOff}
	if c.Hops == "" {
		c.Hops = "L"
	}
	if c.Seed, err = canonicalOr(in.Seed, k.firstSeed, flavour); err != nil {
		return out, fmt.Errorf("seed: %w", err)
	}
	if c.Via, err = canonicalOr(in.Via, c.Seed, flavour); err != nil {
		return out, fmt.Errorf("via: %w", err)
	}
	if c.ViaRedirect, err = canonicalOr(in.ViaRedirect, "", flavour); err != nil {
		return out, fmt.Errorf("via_redirect: %w", err)
	}
	switch {
	case in.Addr != "":
		if c.Addr, err = netip.ParseAddr(in.Addr); err != nil {
			return out, fmt.Errorf("addr: %w", err)
		}
	case k.hostAddr != nil:
		c.Addr, _ = k.hostAddr(fetched) // none: scope says no-address where an ip rule could let it in
	}
	d := k.s.Decide(c)
	out.Reason = d.Reason
	if k.s.NeedsAddr() && c.Addr.IsValid() {
		out.Addr = c.Addr.String()
	}
	if d.In {
		out.Decision = "in"
	} else {
		out.Suggestion = report.Suggestion(d.Reason, fetched, c.Hops)
	}
	return out, nil
}

// otherScheme reports whether raw is a URL of a scheme other than http(s).
func otherScheme(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	return err == nil && u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https"
}

// checkURLs writes to enc the decision for each URL of the command line. A URL check
// refuses is a usage error.
func (k *scopeChecker) checkURLs(urls []string, enc *json.Encoder) error {
	for _, u := range urls {
		out, err := k.check(checkInput{URL: u})
		if err != nil {
			return usageError{err}
		}
		if err := enc.Encode(out); err != nil {
			return fmt.Errorf("write decision: %w", err)
		}
	}
	return nil
}

// checkStdin writes to enc the decision for each JSON line of stdin (a checkInput; blank
// lines are skipped), until its end or ctx is done. A line that is not a checkInput with a
// url, or that check refuses, is a usage error naming the line.
func (k *scopeChecker) checkStdin(ctx context.Context, stdin io.Reader, enc *json.Encoder) error {
	sc := bufio.NewScanner(stdin)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var in checkInput
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return usagef("stdin line %d: %w", n, err)
		}
		if in.URL == "" {
			return usagef("stdin line %d: no \"url\"", n)
		}
		out, err := k.check(in)
		if err != nil {
			return usagef("stdin line %d: %w", n, err)
		}
		if err := enc.Encode(out); err != nil {
			return fmt.Errorf("write decision: %w", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("stdin: %w", err)
	}
	return nil
}

// loadScope reads the config named by --config and builds its scope, with --flavour applied,
// and returns its urls section (what the crawl does to a URL it finds) and its
// network.connect_to mappings (for the hosts' addresses).
func loadScope(f scopeFlags) (scope.Config, *scope.Scope, crawl.URLConfig, []fetch.ConnectTo, error) {
	var urls crawl.URLConfig
	cfg, _, err := loadConfigs(f.configs, f.fastDomain, f.strict)
	if err != nil {
		return scope.Config{}, nil, urls, nil, err
	}
	if f.flavour != "" {
		cfg.Scope.Flavour = f.flavour
	}
	sc, err := cfg.ScopeConfig(config.DefaultFlavour(cfg.Fetcher))
	if err != nil {
		return sc, nil, urls, nil, err
	}
	s, err := scope.New(sc)
	if err != nil {
		return sc, nil, urls, nil, fmt.Errorf("scope: %w", err)
	}
	if urls, err = cfg.URLConfig(); err != nil {
		return sc, nil, urls, nil, err
	}
	mappings, err := cfg.Network.Mappings()
	if err != nil {
		return sc, nil, urls, nil, err
	}
	return sc, s, urls, mappings, nil
}

// canonicalOr canonicalises s, or returns def when s is empty.
func canonicalOr(s, def string, f scope.Flavour) (string, error) {
	if s == "" {
		return def, nil
	}
	return scope.Canonicalize(s, f)
}
