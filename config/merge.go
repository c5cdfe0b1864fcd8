package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Part is one of the files a crawl's configuration is made of (amber crawl --config A
// --config B): its name for messages, its model, and, for another crawler's file, its
// conversion (nil for amber's YAML) and what it is ("the Elastic Open Crawler file
// crawler.yml"), for Render's first line.
type Part struct {
	Name      string
	File      *File
	Converted *Converted
	Title     string
}

// wholeLists are the lists that are one setting rather than a list of entries: two files
// that give them differently disagree, as for a single value.
var wholeLists = map[string]bool{
	"documents.deduplication_fields":                 true,
	"documents.binary_content_extraction_mime_types": true,
	"content.types":             true,
	"content.link_types":        true,
	"politeness.delay_schedule": true,
}

// Merge combines the files of one crawl's configuration, in the order given, into one File.
// Each file is first a File on its own (another crawler's file converted), then:
//   - a key set in one file only (a value that is not the zero value, a pointer that is not
//     nil) is taken as it is;
//   - a key set in several files to the same value is that value; set to different values,
//     it is an error that names the key and both files (values of secrets not shown):
//     amber does not guess which file the archivist meant, and a crawl's settings do not
//     depend on the order of --config flags; a flag (--workers, --max-crawl-depth, ...)
//     is the way to give a value over the files';
//   - lists of entries (seeds, scope.domains, scope.accept and block, auth, sitemaps.urls,
//     network.ca_certificates, ...) are appended, the earlier file's first; the lists that
//     are one setting (wholeLists: documents.deduplication_fields, content.types, ...) are
//     single values;
//   - maps (origin_headers, documents.exclude_tags, politeness.retries, ...) are merged by
//     key, a key set in several files following the rules above.
//
// What the combination must satisfy (one auth entry per origin, domains given once, ...)
// is checked by Build, as for one file. The Files of parts are not modified.
func Merge(parts ...Part) (*File, error) {
	f, _, err := merge(parts)
	return f, err
}

// MergeConverted is Merge, with the conversions of the parts combined: each Sources and
// SecretFrom entry, its list index moved to where the list's entries landed, names its file
// ("crawler.yml: max_crawl_depth"); each note starts with its file's name. Render's first
// line names every file, in order.
func MergeConverted(parts ...Part) (*Converted, error) {
	f, offsets, err := merge(parts)
	if err != nil {
		return nil, err
	}
	cv := &Converted{File: f, Sources: map[string]string{}, SecretFrom: map[string]string{}}
	var titles []string
	for i, p := range parts {
		titles = append(titles, p.Title)
		if p.Converted == nil {
			continue
		}
		for k, v := range p.Converted.Sources {
			cv.Sources[shiftIndex(k, offsets[i])] = p.Name + ": " + v
		}
		for k, v := range p.Converted.SecretFrom {
			cv.SecretFrom[shiftIndex(k, offsets[i])] = p.Name + ": " + v
		}
		for _, n := range p.Converted.Notes {
			cv.Notes = append(cv.Notes, p.Name+": "+n)
		}
	}
	cv.Title = "several files, combined in this order: " + strings.Join(titles, "; ")
	return cv, nil
}

// shiftIndex moves the first list index of the key path k ("seeds[2].url") by the offset
// of that list in offsets.
func shiftIndex(k string, offsets map[string]int) string {
	open := strings.IndexByte(k, '[')
	if open < 0 {
		return k
	}
	end := strings.IndexByte(k[open:], ']')
	n, err := strconv.Atoi(k[open+1 : open+max(end, 0)])
	if end < 0 || err != nil || offsets[k[:open]] == 0 {
		return k
	}
	return k[:open+1] + strconv.Itoa(n+offsets[k[:open]]) + k[open+end:]
}

// merger combines parts into one File, recording which part set each key and where each
// part's list entries landed.
type merger struct {
	part    int              // the part being merged
	names   []string         // of the parts
	owner   map[string]int   // key path -> the part that set it
	offsets []map[string]int // per part: list path -> index of its first entry
}

func merge(parts []Part) (*File, []map[string]int, error) {
	out := &File{}
	m := &merger{owner: map[string]int{}}
	for i, p := range parts {
		m.part = i
		m.names = append(m.names, p.Name)
		m.offsets = append(m.offsets, map[string]int{})
		if p.File == nil {
			continue
		}
		if err := m.value(reflect.ValueOf(out).Elem(), reflect.ValueOf(p.File).Elem(), ""); err != nil {
			return nil, nil, err
		}
	}
	return out, m.offsets, nil
}

// value merges src into dst, both of the type at path (see Merge).
func (m *merger) value(dst, src reflect.Value, path string) error {
	switch dst.Kind() {
	case reflect.Struct:
		t := dst.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			name, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
			if !sf.IsExported() || name == "-" {
				continue
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			if err := m.value(dst.Field(i), src.Field(i), p); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if src.Len() == 0 {
			return nil
		}
		if dst.Len() == 0 || wholeLists[path] {
			return m.set(dst, src, path)
		}
		m.offsets[m.part][path] = dst.Len()
		dst.Set(reflect.AppendSlice(reflect.AppendSlice(reflect.MakeSlice(dst.Type(), 0, dst.Len()+src.Len()), dst), src))
		return nil
	case reflect.Map:
		return m.mapValue(dst, src, path)
	case reflect.Pointer, reflect.Interface:
		if src.IsNil() {
			return nil
		}
		return m.set(dst, src, path)
	}
	if src.IsZero() {
		return nil
	}
	return m.set(dst, src, path)
}

// mapValue merges the map src into dst by key (into a copy: the parts' maps are not
// changed); a value that is a map is merged in turn.
func (m *merger) mapValue(dst, src reflect.Value, path string) error {
	if src.Len() == 0 {
		return nil
	}
	merged := reflect.MakeMapWithSize(dst.Type(), dst.Len()+src.Len())
	iter := dst.MapRange()
	for iter.Next() {
		merged.SetMapIndex(iter.Key(), iter.Value())
	}
	iter = src.MapRange()
	for iter.Next() {
		k, v := iter.Key(), iter.Value()
		p := fmt.Sprintf("%s.%v", path, k.Interface())
		old := merged.MapIndex(k)
		switch {
		case !old.IsValid():
			merged.SetMapIndex(k, v)
			m.owner[p] = m.part
		case v.Kind() == reflect.Map:
			both := reflect.New(v.Type()).Elem()
			both.Set(old)
			if err := m.mapValue(both, v, p); err != nil {
				return err
			}
			merged.SetMapIndex(k, both)
		default:
			cur := reflect.New(old.Type()).Elem()
			cur.Set(old)
			if err := m.set(cur, v, p); err != nil {
				return err
			}
		}
	}
	dst.Set(merged)
	return nil
}

// set gives dst the value src, set by the current part at path: an error when dst holds
// another value already (the zero value and nil are none).
func (m *merger) set(dst, src reflect.Value, path string) error {
	if !dst.IsZero() && !reflect.DeepEqual(dst.Interface(), src.Interface()) {
		prev := m.names[m.owner[path]]
		return fmt.Errorf("%w: %s is %s in %s and %s in %s: give it in one file only (or give the value with its flag)",
			ErrConfig, path, shown(path, dst), prev, shown(path, src), m.names[m.part])
	}
	dst.Set(src)
	m.owner[path] = m.part
	return nil
}

// shown is v for an error message: numbers and booleans as they are, texts quoted unless
// the key may hold a secret, other values (lists, maps, sections) as "a different value".
func shown(path string, v reflect.Value) string {
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() != reflect.Struct {
		v = v.Elem()
	}
	last := path[strings.LastIndexByte(path, '.')+1:]
	switch v.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		return fmt.Sprint(v.Interface())
	case reflect.String:
		for _, s := range []string{"password", "key", "value", "secret", "token", "cookie", "body"} {
			if strings.Contains(strings.ToLower(last), s) {
				return "a value (not shown)"
			}
		}
		return strconv.Quote(v.String())
	}
	return "one value"
}
