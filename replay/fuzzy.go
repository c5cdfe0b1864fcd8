package replay

import (
	"path"
	"slices"
	"strings"
)

// The fuzzy rules: what replay accepts in place of a URL that was not captured as it is
// asked for. They are the generic rules pywb (pywb/rules.yaml: default_filters, and its
// fallback rule for all URLs) and wabac.js, ReplayWeb.page's engine (src/fuzzymatcher.ts:
// its generic rules, "should be last"), apply, read on the CDX keys of the request and of the
// captures of the same path (scheme, "www." and the order of the query's parameters are
// already outside the key). A capture matches when a rule makes its key equal to the
// request's:
//
//   - cache-busting: a query parameter that only makes the URL unique is left out on both
//     sides: "_", "cb", "uncache", "_ga" or a name containing "cache" with a number as value
//     (jQuery's cache: false adds _=TIME; pywb's (_|cb|uncache)=\d+ and wabac.js's
//     (_|cb|_ga|\w*cache\w*)=[\d.-]+), and a name containing "bust" or "ts" whose value is a
//     Unix time in milliseconds or microseconds, 1 and 12 to 15 digits (pywb's
//     \w*(bust|ts)\w*=1\d{12,15}).
//   - tracking: campaign and click identifiers are left out: utm_* (both), fbclid (pywb),
//     and the same kind's gclid and msclkid.
//   - jsonp: a JSONP callback name made up per request is reduced to its stem:
//     callback=jsonpXYZ to callback=jsonp, and NAME=jQuery123_456 (jQuery's callbacks) to
//     NAME=jquery (pywb's url_normalize; wabac.js leaves them out).
//   - static-file: for a GET of a file whose type a query does not change (the last path
//     segment ends in .css, .js, .json, an image, font, audio or video extension, or an HLS or
//     DASH manifest), the query is ignored: a capture of the path with any query, or none,
//     matches (wabac.js's (\.(?:js|webm|mp4|gif|jpg|png|css|json|m3u8))\?.* rule with more
//     types; pywb ignores the query of any extension but asp, aspx, jsp, php, pl, exe and dll,
//     which conflates pages such as list.html?page=2; amber does not), and so does a capture
//     of a streaming manifest or Flash file by its type (pywb's default_filters mimes).
//
// The first three are tried first: a capture they match is closer to the request than one
// the static-file rule matches. Not applied: wabac.js's last resort, the capture of the same
// path whose query is most like the request's by a similarity score, which answers every
// query of a path with some capture of it (a search for anything with the results of the one
// search captured), and so hides from QA what is missing; and the site-specific rules of both
// (YouTube, Vimeo, Facebook, Twitter ...).

// Names of the fuzzy rules, as the Amber-Replay header and the documentation give them.
const (
	ruleCacheBusting = "cache-busting"
	ruleTracking     = "tracking"
	ruleJSONP        = "jsonp"
	ruleStaticFile   = "static-file"
)

// staticExts are the extensions of the files whose query the static-file rule ignores.
var staticExts = map[string]bool{
	"css": true, "js": true, "mjs": true, "json": true,
	"png": true, "jpg": true, "jpeg": true, "gif": true, "webp": true, "avif": true, "svg": true, "ico": true, "bmp": true,
	"woff": true, "woff2": true, "ttf": true, "otf": true, "eot": true,
	"mp3": true, "m4a": true, "oga": true, "ogg": true, "wav": true, "flac": true,
	"mp4": true, "m4v": true, "webm": true, "ogv": true, "mov": true,
	"m3u8": true, "mpd": true,
}

// staticMimes are the types whose captures the static-file rule matches whatever the
// extension (pywb's default_filters mimes).
var staticMimes = map[string]bool{
	"application/x-shockwave-flash": true,
	"application/dash+xml":          true,
	"application/x-mpegurl":         true,
	"application/vnd.apple.mpegurl": true,
}

// splitKey splits a CDX key into the part before the query and the query's parameters.
func splitKey(key string) (base string, params []string) {
	base, query, ok := strings.Cut(key, "?")
	if !ok || query == "" {
		return base, nil
	}
	return base, strings.Split(query, "&")
}

// normalizeKey applies the parameter rules (cache-busting, tracking, jsonp) to a CDX key and
// returns the key they leave and the names of the rules that changed it.
func normalizeKey(key string) (string, []string) {
	base, params := splitKey(key)
	if len(params) == 0 {
		return key, nil
	}
	var kept, rules []string
	add := func(r string) {
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	for _, p := range params {
		name, value, _ := strings.Cut(p, "=")
		switch {
		case cacheBusting(name, value):
			add(ruleCacheBusting)
		case tracking(name):
			add(ruleTracking)
		default:
			if n := jsonp(name, value); n != p {
				add(ruleJSONP)
				p = n
			}
			kept = append(kept, p)
		}
	}
	if len(rules) == 0 {
		return key, nil
	}
	slices.Sort(kept)
	if len(kept) == 0 {
		return base, rules
	}
	return base + "?" + strings.Join(kept, "&"), rules
}

// cacheBusting reports whether the parameter name=value of a (lowercase) key only makes a
// URL unique.
func cacheBusting(name, value string) bool {
	switch {
	case name == "_" || name == "cb" || name == "uncache" || name == "_ga" || wordChars(name) && strings.Contains(name, "cache"):
		return value != "" && strings.Trim(value, "0123456789.-") == ""
	case wordChars(name) && (strings.Contains(name, "bust") || strings.Contains(name, "ts")):
		return len(value) >= 13 && len(value) <= 16 && value[0] == '1' && strings.Trim(value, "0123456789") == ""
	}
	return false
}

// tracking reports whether a (lowercase) parameter name is a campaign or click identifier.
func tracking(name string) bool {
	return strings.HasPrefix(name, "utm_") && len(name) > 4 || name == "fbclid" || name == "gclid" || name == "msclkid"
}

// jsonp returns the parameter name=value with a made-up JSONP callback name reduced to its
// stem, or as it is.
func jsonp(name, value string) string {
	switch {
	case name == "callback" && strings.HasPrefix(value, "jsonp") && len(value) > len("jsonp"):
		return "callback=jsonp"
	case wordChars(name) && strings.HasPrefix(value, "jquery"):
		digits, rest, ok := strings.Cut(value[len("jquery"):], "_")
		if ok && digits != "" && allDigits(digits) && rest != "" && allDigits(rest) {
			return name + "=jquery"
		}
	}
	return name + "=" + value
}

// staticFile reports whether a CDX key's path ends in an extension of staticExts.
func staticFile(key string) bool {
	base, _ := splitKey(key)
	_, p, ok := strings.Cut(base, ")")
	if !ok {
		return false
	}
	ext := strings.TrimPrefix(path.Ext(path.Base(p)), ".")
	return staticExts[ext]
}

func wordChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// fuzzyMatch reports whether a capture with key cand (and media type mime) may answer a
// request with key req, none of them equal, and by which rules. get is whether the request
// is a GET or HEAD (the static-file rule applies to nothing else). rank is 0 for the
// parameter rules, 1 for static-file.
func fuzzyMatch(req, cand, mime string, get bool) (rules []string, rank int, ok bool) {
	nreq, rreq := normalizeKey(req)
	ncand, rcand := normalizeKey(cand)
	if nreq == ncand && (len(rreq) > 0 || len(rcand) > 0) {
		for _, r := range rcand {
			if !slices.Contains(rreq, r) {
				rreq = append(rreq, r)
			}
		}
		// In the order of the documentation.
		order := []string{ruleCacheBusting, ruleTracking, ruleJSONP}
		slices.SortFunc(rreq, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
		return rreq, 0, true
	}
	if !get || strings.Contains(cand, "__wb_method=") {
		return nil, 0, false
	}
	rb, _ := splitKey(req)
	cb, _ := splitKey(cand)
	if rb == cb && (staticFile(req) || staticMimes[mime]) {
		return []string{ruleStaticFile}, 1, true
	}
	return nil, 0, false
}
