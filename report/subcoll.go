package report

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SubcollectionsReportFile counts the captures of each subcollection of the crawl (the
// crawl.log lines with a response annotated sub:NAME), written by Write when there are any:
// one line per subcollection, by captures (descending) then name, in the hosts report's
// form: captures, their bytes (content size, as hosts-report.txt), the name, then the novel,
// duplicate-by-hash and not-modified captures.
const SubcollectionsReportFile = "subcollections-report.txt"

// subcollectionsHeader is the first line of SubcollectionsReportFile.
const subcollectionsHeader = "[#urls] [#bytes] [subcollection] [#novel-urls] [#dup-by-hash-urls] [#not-modified-urls]\n"

// notePrefixSub starts the crawl.log annotation that names a capture's subcollection.
const notePrefixSub = "sub:"

// subStats are one subcollection's figures.
type subStats struct {
	name                    string
	captured, bytes         int64
	novel, dup, notModified int64
}

// addSub counts a crawl.log line of a capture of a subcollection's URL.
func (s *summary) addSub(l *Line) {
	if l.Status <= 0 {
		return
	}
	for _, a := range l.Annotations {
		name, ok := strings.CutPrefix(a, notePrefixSub)
		if !ok || name == "" {
			continue
		}
		if s.subs == nil {
			s.subs = map[string]*subStats{}
		}
		st := s.subs[name]
		if st == nil {
			st = &subStats{name: name}
			s.subs[name] = st
		}
		st.captured++
		st.bytes += max(l.ContentSize(), 0)
		switch {
		case l.Status == 304:
			st.notModified++
		case isDuplicate(l):
			st.dup++
		default:
			st.novel++
		}
		return
	}
}

// htmlSub is a row of report.html's subcollections table.
type htmlSub struct {
	Name                                     string
	Captured, Bytes, Novel, Dup, NotModified int64
}

// htmlSubs are the rows of report.html's subcollections table, in the order of
// SubcollectionsReportFile.
func (s *summary) htmlSubs() []htmlSub {
	var out []htmlSub
	for _, st := range s.subRows() {
		out = append(out, htmlSub{Name: st.name, Captured: st.captured, Bytes: st.bytes, Novel: st.novel, Dup: st.dup, NotModified: st.notModified})
	}
	return out
}

// subRows are the subcollections by captures (descending), then name.
func (s *summary) subRows() []*subStats {
	rows := make([]*subStats, 0, len(s.subs))
	for _, st := range s.subs {
		rows = append(rows, st)
	}
	slices.SortFunc(rows, func(a, b *subStats) int {
		if a.captured != b.captured {
			if a.captured > b.captured {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	return rows
}

// subcollectionsReport is SubcollectionsReportFile's content.
func (s *summary) subcollectionsReport() []byte {
	rows := s.subRows()
	var b bytes.Buffer
	b.WriteString(subcollectionsHeader)
	for _, st := range rows {
		for _, f := range []string{i64(st.captured), i64(st.bytes), st.name, i64(st.novel), i64(st.dup), i64(st.notModified)} {
			b.WriteString(f)
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// writeSubcollections writes SubcollectionsReportFile into dir when the crawl has captures of
// subcollections, and removes one an earlier Write left when it has none.
func (s *summary) writeSubcollections(dir string) error {
	path := filepath.Join(dir, SubcollectionsReportFile)
	if len(s.subs) == 0 {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	return writeFileAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(s.subcollectionsReport())
		return err
	})
}
