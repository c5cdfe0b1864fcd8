package crawl

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/platform"
	"github.com/amber-crawler/amber/report"
)

// Paths of the reports and the events log inside the crawl directory.
const (
	ReportsDir = crawldir.ReportsDir
	EventsFile = crawldir.EventsFile
)

// Meta keys describing the crawl for reports written later (`amber report`).
const (
	metaCollection = "crawl/collection"
	metaStarted    = "crawl/started"
	metaSeeds      = "crawl/seeds" // "URL TYPE" lines, in entries of linesChunk (putLines)
	metaEnd        = "crawl/end"   // how the last run ended
	// metaPlatformRules holds the platform rules of the last run, "ID on" or "ID off" lines.
	metaPlatformRules = "crawl/platform-rules"
)

// ErrInUse is returned by WriteReports when a running crawl holds the crawl directory.
var ErrInUse = errors.New("crawl: crawl directory in use by a running crawl")

// describe records what reports need to know about the crawl (first run: start time).
func (c *crawler) describe() error {
	if _, ok, err := c.front.Meta(metaStarted); err != nil {
		return fmt.Errorf("read crawl start: %w", err)
	} else if !ok {
		if err := c.front.PutMeta(metaStarted, []byte(time.Now().UTC().Format(time.RFC3339Nano))); err != nil {
			return fmt.Errorf("record crawl start: %w", err)
		}
	}
	var seeds []string
	for _, s := range c.cfg.Scope.Seeds {
		t := string(s.Type)
		if t == "" {
			t = "standard"
		}
		seeds = append(seeds, s.URL+" "+t)
	}
	if err := putLines(c.front, metaSeeds, seeds); err != nil {
		return fmt.Errorf("record seeds: %w", err)
	}
	if err := c.front.PutMeta(metaCollection, []byte(c.cfg.Collection)); err != nil {
		return fmt.Errorf("record collection: %w", err)
	}
	var rules []string
	for _, r := range c.platforms.Rules() {
		state := "off"
		if r.On {
			state = "on"
		}
		rules = append(rules, r.ID+" "+state)
	}
	if err := putLines(c.front, metaPlatformRules, rules); err != nil {
		return fmt.Errorf("record platform rules: %w", err)
	}
	return nil
}

// WriteReports (re)writes the reports of the crawl in dir from its crawl.log and frontier. It
// works on a finished, stopped or killed crawl, but not while a crawl is running in dir.
func WriteReports(dir string) error {
	front, err := frontier.Open(frontier.Config{Dir: filepath.Join(dir, StateDir)})
	if err != nil {
		if errors.Is(err, frontier.ErrLocked) {
			return fmt.Errorf("%w: %w", ErrInUse, err)
		}
		return fmt.Errorf("open frontier of %s: %w", dir, err)
	}
	defer front.Close()
	return writeReports(dir, front, time.Time{}, "", false)
}

// writeReports writes the reports of the crawl in dir, whose frontier is open as front. A zero
// ended and empty end mean the crawl's own record of its last end is used. A shared frontier
// holds the whole crawl's URLs, most of them another process's: this process's reports are
// then those of its own crawl.log (amber report -o OUT DIR... merges the processes').
func writeReports(dir string, front frontier.Store, ended time.Time, end string, shared bool) error {
	in := ReportInput(dir, front)
	if shared {
		in.EachURL = nil
	}
	if end != "" {
		in.EndReason, in.Ended = end, ended
	}
	if err := report.Write(filepath.Join(dir, ReportsDir), in); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	return nil
}

// ReportInput is the report input of the crawl in dir whose own frontier is open as front:
// what the crawl recorded of itself (collection, start, seeds, how its last run ended, unless
// URLs are still in flight: a killed crawl), its crawl.log, and every URL the frontier knows
// (read once, while the reports are written: never the whole crawl in memory).
func ReportInput(dir string, front frontier.Store) report.Input {
	var in report.Input
	meta := func(key string) string {
		v, ok, err := front.Meta(key)
		if err != nil || !ok {
			return ""
		}
		return string(v)
	}
	in.Collection = meta(metaCollection)
	if t, err := time.Parse(time.RFC3339Nano, meta(metaStarted)); err == nil {
		in.Started = t
	}
	// "reason time" of the last run that ended; a killed crawl has none for its last run.
	if r, t, ok := strings.Cut(meta(metaEnd), " "); ok {
		if at, err := time.Parse(time.RFC3339Nano, t); err == nil && front.Stats().InFlight == 0 {
			in.EndReason, in.Ended = r, at
		}
	}
	for _, l := range strings.Split(readLines(meta, metaSeeds), "\n") {
		if u, t, ok := strings.Cut(l, " "); ok {
			in.Seeds = append(in.Seeds, report.SeedInfo{URL: u, Type: t})
		}
	}
	in.PlatformRules = platformRules(readLines(meta, metaPlatformRules))
	in.CrawlLog = filepath.Join(dir, CrawlLogFile)
	in.Dirs = []string{dir}
	in.EachURL = func(fn func(report.URLState) error) error {
		return front.Each(func(e frontier.Entry) error {
			return fn(report.URLState{
				URL: e.URL.URL, Host: e.URL.Host, State: e.State, Status: e.Status, Reason: e.Reason,
				Hops: e.URL.Hops, Via: e.URL.Via, Seed: e.URL.Seed,
			})
		})
	}
	return in
}

// linesChunk bounds the bytes of one of the metadata entries putLines writes, well below
// frontier.MaxRecordSize: a crawl of 6,000 seeds has half a megabyte of seed lines.
const linesChunk = 32 << 10

// putLines records lines under the metadata key in entries of whole lines, each at most
// linesChunk bytes unless one line alone is longer: the first under key itself (as a crawl
// recorded them all before), the next under key/1, key/2 and so on, and an empty entry after
// the last, which ends them for readLines whatever a longer list of an earlier run left after
// it.
func putLines(front frontier.Store, key string, lines []string) error {
	var b []byte
	i := 0
	put := func() error {
		k := key
		if i > 0 {
			k += "/" + strconv.Itoa(i)
		}
		i++
		err := front.PutMeta(k, b)
		b = nil // a Store may keep what it was given
		return err
	}
	for _, l := range lines {
		if len(b) > 0 && len(b)+1+len(l) > linesChunk {
			if err := put(); err != nil {
				return err
			}
		}
		if len(b) > 0 {
			b = append(b, '\n')
		}
		b = append(b, l...)
	}
	if err := put(); err != nil {
		return err
	}
	return put() // the empty entry that ends them
}

// readLines returns the lines putLines recorded under key, joined by line breaks, reading
// them with meta ("" for an entry not stored).
func readLines(meta func(string) string, key string) string {
	v := meta(key)
	for i := 1; ; i++ {
		more := meta(key + "/" + strconv.Itoa(i))
		if more == "" {
			return v
		}
		v += "\n" + more
	}
}

// platformRules reads the platform rules recorded in metaPlatformRules, each with the why of
// the built-in rule of its id.
func platformRules(v string) []report.PlatformRule {
	why := map[string]string{}
	if ps, err := platform.Builtin(); err == nil {
		for _, p := range ps {
			for _, r := range p.Rules {
				why[r.ID] = r.Why
			}
		}
	}
	var out []report.PlatformRule
	for _, l := range strings.Split(v, "\n") {
		if id, state, ok := strings.Cut(l, " "); ok {
			out = append(out, report.PlatformRule{ID: id, On: state == "on", Why: why[id]})
		}
	}
	return out
}
