package report

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/internal/varrec"
	"github.com/amber-crawler/amber/scope"
)

// The waste report groups a crawl's captures into URL families, host by host, and names the
// families that took many fetches and gave little new content, each with a block rule that
// would have left it out and the fetches that rule would have saved. It knows no platform: a
// family is a URL template inferred from the host's own URLs, and new content is measured.
//
// What a fetch gave:
//   - new content: a 2xx response whose payload the crawl had not captured before and, when
//     its text was measured (crawl.log's textShingles and textNew: pages, feeds, JSON and XML
//     documents), with at least a fifth of its sampled word shingles new to the crawl
//     (novelty.Measure.Little is false);
//   - a duplicate: its payload was captured before (a revisit);
//   - a near-duplicate: measured, and less than a fifth of its text new (an edit form holding
//     an article's text, the hundredth "what links here" list, an old revision);
//   - no content: not a 2xx and not a 304 (redirects, errors);
//   - a 304 (a recrawl's not-modified) is none of these.
//
// Families. A URL is split into components: its path segments, then its query parameters
// sorted by name, each a value; a component into tokens, after each ":" and, in a value, each
// "/" ("Special:WhatLinksHere/Main_Page" is "Special:", "WhatLinksHere/", "Main_Page"); a token
// of digits without letters reads "#". The URLs of a host with the same number of segments,
// tokens per component and parameter names are one shape; a shape is split token by token, in
// order: a token with few distinct values in the group (no more than the square root of the
// group's size) is kept, the group split by it; one with many is a wildcard for the rest of
// its component. So "/index.php?action=edit&title=*" and "/index.php?title=Special:WhatLinksHere/*"
// are families, and the article titles are a wildcard. Templates are inferred from a sample of
// at most wasteSample URLs of a host (reproducible: seeded by the host); a URL outside the
// sample that fits none is counted in the host's family "(other)".
//
// Rules. For each named family the candidates are: each parameter with a fixed value
// (action=edit), each fixed start of a parameter's value (title=Special:), each parameter
// present with any value (oldid=), each fixed start of the path (/wp-json), and the path
// template. Each is a `regex:` rule of amber's syntax, tried on the host's sample with the
// crawl's own rule matching (on every capture when the host has no more than wasteSample); a
// candidate is acceptable when at most one in twenty of the
// fetches it matches gave new content, and the one chosen matches the most fetches without new
// content (then the fewest with, then the shortest). Families with the same rule are one
// proposal, whose figures are then counted on every capture of the host.

// Thresholds of the waste report.
const (
	wasteMinFetches     = 10    // a family is named when it wasted at least this many fetches,
	wasteHostShare      = 100   // at least 1/wasteHostShare of its host's captures,
	wasteSample         = 20000 // URLs of a host its families are inferred from
	wasteMaxFamilies    = 20    // named families of a host whose rules are looked for
	wasteMaxProposals   = 50    // proposals listed
	wasteLossPerMatched = 20    // a rule may match one fetch with new content in this many
)

// What a fetch gave (see above).
const (
	gaveNew byte = iota
	gaveDuplicate
	gaveNear
	gaveNothing
	gaveNotModified
)

// Waste is the waste report: the URL families that took many fetches and gave little new
// content, as block rules to add.
type Waste struct {
	// TextMeasured says some captures had their text measured (crawl.log's textShingles):
	// without it (an older crawl, documents off) only duplicates and responses without
	// content count as waste.
	TextMeasured bool `json:"text_measured"`
	// Proposals are the rules, by wasted fetches, most first.
	Proposals []WasteProposal `json:"proposals"`
	// Hosts are the hosts with proposals: what all of a host's rules together would have
	// saved (a fetch two rules match counts once).
	Hosts []WasteHost `json:"hosts"`
}

// WasteHost is what the proposed rules of one host would have saved together.
type WasteHost struct {
	Host    string `json:"host"`
	Fetches int64  `json:"fetches"` // the host's captures
	Saved   int64  `json:"saved"`   // captures any of its rules match
	New     int64  `json:"new_content"`
}

// WasteProposal is a block rule that would have left out families of a host's URLs.
type WasteProposal struct {
	Host string `json:"host"`
	// Rule is the block rule, in amber's `kind:value` syntax (a scope.block entry, an
	// --exclude flag, amber ctl block); "" when no rule was found that leaves out little new
	// content besides (Families then has the one family).
	Rule string `json:"rule,omitempty"`
	// Fetches are the captures the rule matches: the fetches it would have saved (and the
	// links of those pages, not followed, more). Wasted are those that gave no new content,
	// New those that did.
	Fetches int64 `json:"fetches"`
	Wasted  int64 `json:"wasted"`
	New     int64 `json:"new_content"`
	Bytes   int64 `json:"bytes"`
	// Families are the named families the rule leaves out, by wasted fetches.
	Families []WasteFamily `json:"families"`
}

// WasteFamily is one URL family of a host and what its fetches gave.
type WasteFamily struct {
	Pattern        string `json:"family"` // path and query template: "/index.php?action=edit&title=*"
	Example        string `json:"example"`
	Fetches        int64  `json:"fetches"`
	New            int64  `json:"new_content"`
	Duplicates     int64  `json:"duplicates"`
	NearDuplicates int64  `json:"near_duplicates"`
	NoContent      int64  `json:"no_content"`
	Bytes          int64  `json:"bytes"`
}

// Wasted is the family's fetches that gave no new content.
func (f WasteFamily) Wasted() int64 { return f.Duplicates + f.NearDuplicates + f.NoContent }

// gave classifies a captured record.
func gave(r *record) byte {
	switch {
	case r.status == 304:
		return gaveNotModified
	case r.status < 200 || r.status >= 300:
		return gaveNothing
	case r.dup:
		return gaveDuplicate
	case r.hasText && r.text.Little():
		return gaveNear
	}
	return gaveNew
}

// A waste item is a captured URL, sorted by host then URL: host and URL (appendKey), what it
// gave (1 byte), its size (varint).

func encodeWasteItem(b []byte, r *record) []byte {
	b = appendKey(b, r.host)
	b = appendKey(b, r.url)
	b = append(b, gave(r))
	return binary.AppendVarint(b, max(r.size, 0))
}

// wasteItem is a decoded waste item.
type wasteItem struct {
	url  string
	gave byte
	size int64
}

// wasteAnalysis builds the waste report from the sorted waste items, one host at a time, in
// tmp; its memory is bounded by wasteSample URLs and the proposals kept.
type wasteAnalysis struct {
	tmp       string
	proposals []WasteProposal
	hosts     []WasteHost
}

// analyse reads the sorted items and returns the report.
func (w *wasteAnalysis) analyse(items recordStream, measured bool) (Waste, error) {
	f, err := os.CreateTemp(w.tmp, "waste-host-*")
	if err != nil {
		return Waste{}, fmt.Errorf("report: waste report: %w", err)
	}
	defer f.Close()
	var (
		host   string
		n      int64
		sample []wasteItem
		rng    *rand.Rand
		bw     = bufio.NewWriterSize(f, 64<<10)
		buf    []byte
	)
	flush := func() error {
		if n == 0 {
			return nil
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if err := w.host(host, f, n, sample); err != nil {
			return err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if err := f.Truncate(0); err != nil {
			return err
		}
		bw.Reset(f)
		n, sample = 0, sample[:0]
		return nil
	}
	for {
		it, ok, err := items.next()
		if err != nil {
			return Waste{}, err
		}
		if !ok {
			break
		}
		h, rest, kok := cutKey(it)
		if !kok {
			return Waste{}, errCorruptRun
		}
		u, rest, kok := cutKey(rest)
		if !kok || len(rest) < 1 {
			return Waste{}, errCorruptRun
		}
		size, _ := binary.Varint(rest[1:])
		item := wasteItem{url: string(u), gave: rest[0], size: size}
		if string(h) != host {
			if err := flush(); err != nil {
				return Waste{}, fmt.Errorf("report: waste report: %w", err)
			}
			host = string(h)
			rng = rand.New(rand.NewPCG(hostSeed(host), 0))
		}
		buf = varrec.AppendString(buf[:0], item.url)
		buf = append(buf, item.gave)
		buf = binary.AppendVarint(buf, item.size)
		if err := writeRecord(bw, buf); err != nil {
			return Waste{}, fmt.Errorf("report: waste report: %w", err)
		}
		n++
		// Reservoir sampling (Algorithm R), seeded by the host: the same crawl, the same sample.
		if len(sample) < wasteSample {
			sample = append(sample, item)
		} else if j := rng.Int64N(n); j < wasteSample {
			sample[j] = item
		}
	}
	if err := flush(); err != nil {
		return Waste{}, fmt.Errorf("report: waste report: %w", err)
	}
	ps := w.proposals
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Wasted != ps[j].Wasted {
			return ps[i].Wasted > ps[j].Wasted
		}
		if ps[i].Host != ps[j].Host {
			return ps[i].Host < ps[j].Host
		}
		return ps[i].Rule < ps[j].Rule
	})
	if len(ps) > wasteMaxProposals {
		ps = ps[:wasteMaxProposals]
	}
	hs := w.hosts
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].Saved > hs[j].Saved })
	return Waste{TextMeasured: measured, Proposals: slices.Clip(ps), Hosts: hs}, nil
}

func hostSeed(host string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(host))
	return h.Sum64()
}

// eachHostItem calls fn for each of the n items of the host file f.
func eachHostItem(f *os.File, n int64, fn func(wasteItem)) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	rr := runReader{f: f, r: bufio.NewReaderSize(f, 64<<10)}
	for range n {
		ok, err := rr.read()
		if err == nil && !ok {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		d := varrec.NewDecoder(rr.rec, errCorruptRun)
		it := wasteItem{url: d.Str(), gave: d.Byte(), size: d.Varint()}
		if err := d.Err(); err != nil {
			return err
		}
		fn(it)
	}
	return nil
}

// host analyses the n captures of one host, in f, inferring its families from sample.
func (w *wasteAnalysis) host(host string, f *os.File, n int64, sample []wasteItem) error {
	if n < wasteMinFetches || host == "" || host == "-" || host == "dns:" {
		return nil
	}
	fams := inferFamilies(sample)
	other := &family{pattern: "(other)"}
	err := eachHostItem(f, n, func(it wasteItem) {
		fam := fams.match(parseURLShape(it.url))
		if fam == nil {
			fam = other
		}
		fam.add(it)
	})
	if err != nil {
		return err
	}
	all := append(fams.list, other)
	var named []*family
	for _, fm := range all {
		wasted := fm.stats.Wasted()
		if wasted >= wasteMinFetches && wasted*wasteHostShare >= n && wasted*2 >= fm.stats.Fetches {
			named = append(named, fm)
		}
	}
	sort.SliceStable(named, func(i, j int) bool {
		return cmp.Or(cmp.Compare(named[j].stats.Wasted(), named[i].stats.Wasted()), strings.Compare(named[i].pattern, named[j].pattern)) < 0
	})
	if len(named) > wasteMaxFamilies {
		named = named[:wasteMaxFamilies]
	}
	if len(named) == 0 {
		return nil
	}
	// Candidates are judged on the sample (all of the host's captures up to wasteSample);
	// the rules chosen are then counted on every capture.
	cands := w.evaluate(host, sample, named)
	type proposal struct {
		WasteProposal
		rule *candidate // nil: none found
	}
	byRule := map[string]*proposal{}
	var order []*proposal
	for _, fm := range named {
		best := bestCandidate(cands[fm])
		key := "\x00" + fm.pattern
		if best != nil {
			key = best.text
		}
		p := byRule[key]
		if p == nil {
			p = &proposal{WasteProposal: WasteProposal{Host: host}, rule: best}
			if best == nil {
				s := fm.stats
				p.Fetches, p.Wasted, p.New, p.Bytes = s.Fetches, s.Wasted(), s.New, s.Bytes
			} else {
				p.Rule = best.text
			}
			byRule[key] = p
			order = append(order, p)
		}
		p.Families = append(p.Families, fm.stats)
	}
	total := WasteHost{Host: host, Fetches: n}
	err = eachHostItem(f, n, func(it wasteItem) {
		saved := false
		for _, p := range order {
			if p.rule == nil || p.rule.rules.First(it.url) < 0 {
				continue
			}
			p.Fetches++
			p.Bytes += it.size
			if it.gave == gaveNew {
				p.New++
			} else if it.gave != gaveNotModified {
				p.Wasted++
			}
			saved = true
		}
		if saved {
			total.Saved++
			if it.gave == gaveNew {
				total.New++
			}
		}
	})
	if err != nil {
		return err
	}
	for _, p := range order {
		w.proposals = append(w.proposals, p.WasteProposal)
	}
	if total.Saved > 0 {
		w.hosts = append(w.hosts, total)
	}
	return nil
}

// candidate is a block rule tried on a host's captures.
type candidate struct {
	text                  string
	rules                 *scope.Rules
	matched, lost, wasted int64 // in the sample
}

// evaluate tries the candidate rules of the named families on the sample of the host's
// captures and returns each family's candidates with their figures.
func (w *wasteAnalysis) evaluate(host string, sample []wasteItem, named []*family) map[*family][]*candidate {
	byText := map[string]*candidate{}
	var list []*candidate
	out := map[*family][]*candidate{}
	for _, fm := range named {
		for _, text := range fm.candidates(host) {
			c := byText[text]
			if c == nil {
				r, err := scope.ParseRule(text)
				if err != nil {
					continue // a candidate that does not parse is not proposed
				}
				rs, err := scope.CompileRules([]scope.Rule{r}, scope.Standard)
				if err != nil {
					continue
				}
				c = &candidate{text: text, rules: rs}
				byText[text] = c
				list = append(list, c)
			}
			out[fm] = append(out[fm], c)
		}
	}
	for _, it := range sample {
		for _, c := range list {
			if c.rules.First(it.url) < 0 {
				continue
			}
			c.matched++
			switch it.gave {
			case gaveNew:
				c.lost++
			case gaveNotModified:
			default:
				c.wasted++
			}
		}
	}
	return out
}

// bestCandidate returns the acceptable candidate that leaves out the most fetches without new
// content (then loses the fewest, then is the shortest), or nil.
func bestCandidate(cs []*candidate) *candidate {
	var best *candidate
	for _, c := range cs {
		if c.matched == 0 || c.lost*wasteLossPerMatched > c.matched {
			continue
		}
		if best == nil || c.wasted > best.wasted || c.wasted == best.wasted &&
			(c.lost < best.lost || c.lost == best.lost && len(c.text) < len(best.text)) {
			best = c
		}
	}
	return best
}

// urlShape is a URL cut into components and tokens (see the waste report's doc).
type urlShape struct {
	comps []component // path segments, then parameter values sorted by name
	nsegs int
	names string // the sorted parameter names, "&"-joined; "" without a query
	query bool
}

// component is a path segment or a parameter's value.
type component struct {
	name string   // the parameter's name; "" for a segment
	eq   bool     // the parameter has "=" (a value, maybe empty)
	toks []string // the tokens, "#" for a number
	raw  []string // the tokens as written
}

// structure is the shape's key: components, tokens per component, parameter names.
func (s *urlShape) structure() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(s.nsegs))
	for _, c := range s.comps {
		b.WriteByte('|')
		b.WriteString(c.name)
		if c.eq {
			b.WriteByte('=')
		}
		b.WriteString(strconv.Itoa(len(c.toks)))
	}
	if s.query {
		b.WriteString("|?" + s.names)
	}
	return b.String()
}

// parseURLShape cuts a canonical URL into its shape; the scheme, host and port are left out
// (a host's families are its own).
func parseURLShape(u string) *urlShape {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = "/"
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	s := &urlShape{query: hasQuery}
	for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		s.comps = append(s.comps, newComponent("", false, seg, ":"))
	}
	s.nsegs = len(s.comps)
	if hasQuery {
		var params []component
		for _, p := range strings.Split(query, "&") {
			name, value, eq := strings.Cut(p, "=")
			params = append(params, newComponent(name, eq, value, ":/"))
		}
		slices.SortStableFunc(params, func(a, b component) int { return strings.Compare(a.name, b.name) })
		names := make([]string, len(params))
		for i, p := range params {
			names[i] = p.name
		}
		s.names = strings.Join(names, "&")
		s.comps = append(s.comps, params...)
	}
	return s
}

// newComponent cuts v into tokens after each of the delimiters.
func newComponent(name string, eq bool, v, delims string) component {
	c := component{name: name, eq: eq}
	for v != "" {
		i := strings.IndexAny(v, delims)
		tok := v
		if i >= 0 {
			tok = v[:i+1]
		}
		v = v[len(tok):]
		c.raw = append(c.raw, tok)
		c.toks = append(c.toks, numberToken(tok))
	}
	if len(c.toks) == 0 {
		c.raw, c.toks = []string{""}, []string{""}
	}
	return c
}

// numberToken is "#" (and the delimiter) for a token with digits and no letters.
func numberToken(tok string) string {
	body := strings.TrimRight(tok, ":/")
	digit := false
	for _, r := range body {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80:
			return tok
		}
	}
	if !digit {
		return tok
	}
	return "#" + tok[len(body):]
}

// family is a URL template of a host and what its fetches gave.
type family struct {
	structure string
	// slots are the template's tokens, component by component: a literal token, or wild (the
	// rest of the component).
	slots   [][]slot
	shape   *urlShape // the first URL of the family, for names and raw tokens
	pattern string
	stats   WasteFamily
}

type slot struct {
	tok  string
	wild bool
}

func (fm *family) add(it wasteItem) {
	s := &fm.stats
	if s.Example == "" {
		s.Example = it.url
		s.Pattern = fm.pattern
	}
	s.Fetches++
	s.Bytes += it.size
	switch it.gave {
	case gaveNew:
		s.New++
	case gaveDuplicate:
		s.Duplicates++
	case gaveNear:
		s.NearDuplicates++
	case gaveNothing:
		s.NoContent++
	}
}

// families are the templates of a host, by structure.
type families struct {
	list  []*family
	index map[string][]*family
}

// match returns the family of a URL's shape, or nil.
func (fs *families) match(s *urlShape) *family {
	for _, fm := range fs.index[s.structure()] {
		if fm.matches(s) {
			return fm
		}
	}
	return nil
}

func (fm *family) matches(s *urlShape) bool {
	for ci, sl := range fm.slots {
		toks := s.comps[ci].toks
		for ti, x := range sl {
			if x.wild {
				break
			}
			if ti >= len(toks) || toks[ti] != x.tok {
				return false
			}
		}
	}
	return true
}

// inferFamilies splits the sample's URLs into families (see the waste report's doc).
func inferFamilies(sample []wasteItem) *families {
	fs := &families{index: map[string][]*family{}}
	byStruct := map[string][]*urlShape{}
	var keys []string
	for _, it := range sample {
		s := parseURLShape(it.url)
		k := s.structure()
		if byStruct[k] == nil {
			keys = append(keys, k)
		}
		byStruct[k] = append(byStruct[k], s)
	}
	sort.Strings(keys)
	for _, k := range keys {
		group := byStruct[k]
		slots := make([][]slot, len(group[0].comps))
		split(group, 0, 0, slots, func(sl [][]slot, g []*urlShape) {
			fm := &family{structure: k, shape: g[0], slots: cloneSlots(sl)}
			fm.pattern = fm.render()
			fs.list = append(fs.list, fm)
			fs.index[k] = append(fs.index[k], fm)
		})
	}
	return fs
}

func cloneSlots(sl [][]slot) [][]slot {
	out := make([][]slot, len(sl))
	for i, s := range sl {
		out[i] = slices.Clone(s)
	}
	return out
}

// split partitions group from component ci, token ti on, building the template in slots, and
// calls emit for each family.
func split(group []*urlShape, ci, ti int, slots [][]slot, emit func([][]slot, []*urlShape)) {
	for ci < len(slots) && ti >= len(group[0].comps[ci].toks) {
		ci, ti = ci+1, 0
	}
	if ci == len(slots) {
		emit(slots, group)
		return
	}
	byTok := map[string][]*urlShape{}
	var toks []string
	for _, s := range group {
		t := s.comps[ci].toks[ti]
		if byTok[t] == nil {
			toks = append(toks, t)
		}
		byTok[t] = append(byTok[t], s)
	}
	keep := slots[ci]
	if len(toks) == 1 || len(toks)*len(toks) <= len(group) {
		sort.Strings(toks)
		for _, t := range toks {
			slots[ci] = append(keep[:ti:ti], slot{tok: t})
			split(byTok[t], ci, ti+1, slots, emit)
		}
		slots[ci] = keep
		return
	}
	slots[ci] = append(keep[:ti:ti], slot{wild: true})
	split(group, ci+1, 0, slots, emit)
	slots[ci] = keep
}

// render writes the family's template: "/index.php?action=edit&title=*".
func (fm *family) render() string {
	var b strings.Builder
	for ci, sl := range fm.slots {
		c := fm.shape.comps[ci]
		switch {
		case ci < fm.shape.nsegs:
			b.WriteByte('/')
		case ci == fm.shape.nsegs:
			b.WriteByte('?')
		default:
			b.WriteByte('&')
		}
		if c.name != "" || ci >= fm.shape.nsegs {
			b.WriteString(c.name)
			if c.eq {
				b.WriteByte('=')
			}
		}
		for _, x := range sl {
			if x.wild {
				b.WriteByte('*')
				break
			}
			b.WriteString(x.tok)
		}
	}
	if fm.shape.nsegs == len(fm.slots) && fm.shape.query {
		b.WriteByte('?')
	}
	return b.String()
}

// literal says whether a token of a family's slot is written as it is in every URL of the
// family (not a wildcard, not a number).
func (x slot) literal() bool { return !x.wild && !strings.HasPrefix(x.tok, "#") }

// candidates returns the family's candidate rules (see the waste report's doc).
func (fm *family) candidates(host string) []string {
	hostRE := `https?://` + regexp.QuoteMeta(host) + `(:[0-9]+)?`
	param := func(name, value string) string {
		return "regex:" + hostRE + `/[^?]*\?(.*&)?` + regexp.QuoteMeta(name) + value + `(&.*)?`
	}
	var out []string
	for ci := fm.shape.nsegs; ci < len(fm.slots); ci++ {
		c, sl := fm.shape.comps[ci], fm.slots[ci]
		if !c.eq {
			continue
		}
		lit := 0
		for lit < len(sl) && sl[lit].literal() {
			lit++
		}
		whole := lit == len(sl)
		if whole {
			out = append(out, param(c.name, "="+regexp.QuoteMeta(strings.Join(c.raw, ""))))
			lit-- // and each shorter start: title=Special:UserLogin is also title=Special:
		}
		for k := lit; k >= 1; k-- {
			out = append(out, param(c.name, "="+regexp.QuoteMeta(strings.Join(c.raw[:k], ""))+`[^&]*`))
		}
		if lit == 0 && !whole {
			out = append(out, param(c.name, `=[^&]*`))
		}
	}
	litSegs := 0
	for litSegs < fm.shape.nsegs && allLiteral(fm.slots[litSegs]) {
		litSegs++
	}
	for k := min(litSegs, fm.shape.nsegs-1); k >= 1; k-- {
		var segs []string
		for _, c := range fm.shape.comps[:k] {
			segs = append(segs, strings.Join(c.raw, ""))
		}
		out = append(out, "regex:"+hostRE+"/"+regexp.QuoteMeta(strings.Join(segs, "/"))+`([/?].*)?`)
	}
	var segs []string
	for ci := range fm.shape.nsegs {
		var b strings.Builder
		for ti, x := range fm.slots[ci] {
			switch {
			case x.wild:
				b.WriteString(`[^/?]*`)
			case strings.HasPrefix(x.tok, "#"):
				b.WriteString(`[^/?]*?` + regexp.QuoteMeta(x.tok[1:]))
			default:
				b.WriteString(regexp.QuoteMeta(fm.shape.comps[ci].raw[ti]))
			}
			if x.wild {
				break
			}
		}
		segs = append(segs, b.String())
	}
	out = append(out, "regex:"+hostRE+"/"+strings.Join(segs, "/")+`(\?.*)?`)
	return out
}

func allLiteral(sl []slot) bool {
	for _, x := range sl {
		if !x.literal() {
			return false
		}
	}
	return true
}

// writeWasteText writes the waste section of scope-report.txt: each proposed rule with its
// host and figures, then the families it leaves out.
func (s *summary) writeWasteText(w *bufio.Writer) {
	ps := s.waste.Proposals
	if len(ps) == 0 {
		return
	}
	w.WriteString("\n== waste: URL families that took many fetches and gave little new content\n")
	if !s.waste.TextMeasured {
		w.WriteString("(no text was measured: only duplicates and responses without content count as waste)\n")
	}
	for _, h := range s.waste.Hosts {
		fmt.Fprintf(w, "%s: its rules below together match %d of its %d captures (%d with new content)\n",
			field(h.Host), h.Saved, h.Fetches, h.New)
	}
	w.WriteString("[host] [#fetches] [#no-new-content] [#new-content] [bytes] [block-rule]\n")
	w.WriteString("  [family] [#fetches] [#new-content] [#duplicate] [#near-duplicate] [#no-content] [example]\n")
	for _, p := range ps {
		rule := p.Rule
		if rule == "" {
			rule = "(none found)"
		}
		fmt.Fprintf(w, "%s %d %d %d %d %s\n", field(p.Host), p.Fetches, p.Wasted, p.New, p.Bytes, field(rule))
		for _, f := range p.Families {
			fmt.Fprintf(w, "  %s %d %d %d %d %d %s\n", field(f.Pattern), f.Fetches, f.New, f.Duplicates,
				f.NearDuplicates, f.NoContent, field(f.Example))
		}
	}
}
