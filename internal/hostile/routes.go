package hostile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"hash/crc32"
	"net"
	"strconv"
	"strings"
	"time"
)

// route answers one request.
func (s *Server) route(c net.Conn, bw *bufio.Writer, r request) {
	name, ok := strings.CutSuffix(r.host, "."+Domain)
	if !ok {
		page(bw, "404 Not Found", "text/plain", []byte("unknown host\n"))
		return
	}
	switch r.path {
	case "/":
		s.index(bw, name)
		return
	case "/after", "/after2":
		html(bw, "<p>a normal page after the hostile one: "+name+r.path+"</p>")
		return
	case "/inner":
		html(bw, "<p>the page linked from the innermost element: "+name+"</p>")
		return
	case "/robots.txt":
		s.robots(c, bw, name)
		return
	case "/favicon.ico":
		page(bw, "404 Not Found", "text/plain", []byte("no favicon\n"))
		return
	}
	if name == Calendar && strings.HasPrefix(r.path, "/cal/") {
		calendar(bw, r.path)
		return
	}
	if name == PathTrap && strings.HasPrefix(r.path, "/a/") {
		html(bw, `<a href="a/">deeper</a>`)
		return
	}
	if name == RedirectChain && strings.HasPrefix(r.path, "/hop/") {
		n, err := strconv.Atoi(strings.TrimPrefix(r.path, "/hop/"))
		switch {
		case err != nil || n < 1 || n > ChainLength:
			page(bw, "404 Not Found", "text/plain", []byte("no such hop\n"))
		case n == ChainLength:
			html(bw, "<p>the end of the chain</p>")
		default:
			redirect(bw, "/hop/"+strconv.Itoa(n+1))
		}
		return
	}
	if name == RobotsLoop && r.path == "/robots2.txt" {
		redirect(bw, "/robots.txt")
		return
	}
	if name == RedirectLoop && r.path == "/loop" {
		redirect(bw, "/case")
		return
	}
	if r.path != "/case" {
		page(bw, "404 Not Found", "text/plain", []byte("not found\n"))
		return
	}
	s.hostileCase(c, bw, name)
}

// index is "/" of every host: the hostile resource first, then a normal page.
func (s *Server) index(bw *bufio.Writer, name string) {
	switch name {
	case Calendar:
		html(bw, `<a href="/cal/2026/11/">calendar</a> <a href="/after">after</a>`)
	case PathTrap:
		html(bw, `<a href="/a/">path</a> <a href="/after">after</a>`)
	case RobotsHuge:
		html(bw, `<a href="/private">private</a> <a href="/after">after</a>`)
	default:
		html(bw, `<h1>`+name+`</h1><a href="/case">hostile</a> <a href="/after">after</a>`)
	}
}

// robots answers /robots.txt: a failing one for the robots cases, an empty allow-all file
// for the others.
func (s *Server) robots(c net.Conn, bw *bufio.Writer, name string) {
	switch name {
	case Robots500:
		page(bw, "500 Internal Server Error", "text/plain", []byte("robots are broken\n"))
	case RobotsStall:
		bw.Flush()
		s.stallConn(c)
	case RobotsHuge:
		var b bytes.Buffer
		b.WriteString("User-agent: *\nDisallow: /private\n")
		for b.Len() < RobotsHugeBytes {
			b.WriteString("# a robots.txt far larger than any crawler reads ......................\n")
		}
		page(bw, "200 OK", "text/plain", b.Bytes()[:RobotsHugeBytes])
	case RobotsLoop:
		redirect(bw, "/robots2.txt")
	default:
		page(bw, "200 OK", "text/plain", []byte("# "+name+"\nUser-agent: *\nDisallow:\n"))
	}
}

// calendar answers /cal/Y/M/ with a link to the next month.
func calendar(bw *bufio.Writer, path string) {
	var y, m int
	if _, err := fmt.Sscanf(path, "/cal/%d/%d/", &y, &m); err != nil || m < 1 || m > 12 {
		page(bw, "404 Not Found", "text/plain", []byte("no such month\n"))
		return
	}
	next := time.Date(y, time.Month(m)+1, 1, 0, 0, 0, 0, time.UTC)
	html(bw, fmt.Sprintf(`<h1>%04d-%02d</h1><a href="/cal/%d/%d/">next month</a>`, y, m, next.Year(), int(next.Month())))
}

// chunkedCases are the chunked cases: the body sent after a head that declares the chunked
// coding (and a Trailer field, for trailer).
var chunkedCases = map[string]struct{ trailer, body string }{
	ChunkBadSize:      {"", "f\r\n<p>first chunk\n\r\nzz\r\n<p>bad size line</p>\r\n0\r\n\r\n"},
	ChunkBadFirstSize: {"", "zz\r\n<p>bad size line</p>\r\n0\r\n\r\n"},
	ChunkLong:         {"", "5\r\n<p>this chunk is much longer than five bytes</p>\r\n0\r\n\r\n"},
	ChunkUnterminated: {"", "f\r\n<p>first chunk\n\r\n"},
	ChunkShort:        {"", "400\r\n<p>announced as 1,024 bytes, sent 41</p>\n"},
	ChunkExtensions:   {"", "f;name=value\r\n<p>first chunk\n\r\n14;q=\"a;b\";flag\r\n<p>second chunk</p>\n\r\n0;last\r\n\r\n"},
	ChunkTrailers: {"X-Checksum, X-Status",
		"f\r\n<p>first chunk\n\r\n14\r\n<p>second chunk</p>\n\r\n0\r\nX-Checksum: 5d41402a\r\nX-Status: complete\r\n\r\n"},
}

// hostileCase answers /case of a host.
func (s *Server) hostileCase(c net.Conn, bw *bufio.Writer, name string) {
	if cc, ok := chunkedCases[name]; ok {
		fields := []string{"Content-Type: text/html", "Transfer-Encoding: chunked"}
		if cc.trailer != "" {
			fields = append(fields, "Trailer: "+cc.trailer)
		}
		head(bw, "200 OK", fields...)
		bw.WriteString(cc.body)
		return
	}
	announced := "Content-Length: " + strconv.Itoa(AnnouncedLength)
	switch name {
	case StallHeaders:
		s.stallConn(c)
	case StallBody:
		head(bw, "200 OK", "Content-Type: text/html", announced)
		bw.Write(filler(100))
		bw.Flush()
		s.stallConn(c)
	case Slow:
		head(bw, "200 OK", "Content-Type: text/html", announced)
		bw.Flush()
		for i := 0; i < AnnouncedLength; i++ {
			if _, err := c.Write([]byte{"<p>slow</p>\n"[i%12]}); err != nil {
				return
			}
			if !s.sleep(time.Second) {
				return
			}
		}
	case RedirectLoop:
		redirect(bw, "/loop")
	case RedirectChain:
		redirect(bw, "/hop/1")
	case ShortBody:
		head(bw, "200 OK", "Content-Type: text/html", announced)
		bw.Write(filler(1000))
	case Reset:
		head(bw, "200 OK", "Content-Type: text/html", announced)
		bw.Write(filler(1000))
		bw.Flush()
		// Let the bytes leave before the RST, so the client sees a body cut by a reset.
		s.sleep(50 * time.Millisecond)
		resetConn(c)
	case GzipBomb:
		b := s.gzipBomb()
		head(bw, "200 OK", "Content-Type: text/html", "Content-Encoding: gzip", "Content-Length: "+strconv.Itoa(len(b)))
		bw.Write(b)
	case Endless:
		head(bw, "200 OK", "Content-Type: text/html")
		bw.WriteString("<!doctype html><html><body>\n")
		chunk := filler(64 << 10)
		for {
			if _, err := bw.Write(chunk); err != nil {
				return
			}
			select {
			case <-s.done:
				return
			default:
			}
		}
	case HugeHeader:
		body := []byte("<!doctype html><p>after a huge header</p>\n")
		head(bw, "200 OK", "Content-Type: text/html", "X-Huge: "+strings.Repeat("h", HugeHeaderBytes),
			"Content-Length: "+strconv.Itoa(len(body)))
		bw.Write(body)
	case BadHeader:
		body := []byte("<!doctype html><p>malformed header fields</p>\n")
		head(bw, "200 OK", "Content-Type: text/html", "This line is not a header field",
			" folded: continuation of nothing", "X-Space : before the colon",
			"Content-Length: "+strconv.Itoa(len(body)))
		bw.Write(body)
	case BadStatus:
		bw.WriteString("HTTP/1.1 2OO OK\r\nContent-Type: text/html\r\nContent-Length: 20\r\nConnection: close\r\n\r\n<p>bad status</p>\n\n")
	case HTTP09:
		bw.WriteString("<!doctype html><html><body><p>HTTP/0.9: no status line, no header</p></body></html>\n")
	case ManyLinks:
		s.linksOnce.Do(func() { s.links = manyLinks() })
		page(bw, "200 OK", "text/html", s.links)
	case LongURL:
		html(bw, `<a href="/long/`+strings.Repeat("x", LongURLBytes-len("/long/"))+`">long</a> <a href="/after2">after</a>`)
	case DeepNesting:
		s.deepOnce.Do(func() {
			s.deep = []byte("<!doctype html><html><body>\n" + strings.Repeat("<div>", NestingDepth) +
				`<a href="/inner">inner</a>` + strings.Repeat("</div>", NestingDepth) + "</body></html>\n")
		})
		page(bw, "200 OK", "text/html", s.deep)
	case Loopback:
		_, port, _ := net.SplitHostPort(s.Addr)
		var b strings.Builder
		for _, h := range LoopbackSpellings {
			fmt.Fprintf(&b, `<a href="http://%s:%s/">%s</a> `, h, port, h)
		}
		b.WriteString(`<a href="/after">after</a>`)
		html(bw, b.String())
	default:
		html(bw, "<p>nothing hostile here: "+name+"</p>")
	}
}

// manyLinks builds the ManyLinks page (7.4 MB: the links fit in any extraction prefix of 8 MiB).
func manyLinks() []byte {
	prefix := `<a href=//` + Host(Offsite) + `/`
	b := make([]byte, 0, ManyLinksCount*(len(prefix)+12)+64)
	b = append(b, "<!doctype html><html><body>\n"...)
	for i := range ManyLinksCount {
		b = append(b, prefix...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, "></a>\n"...)
	}
	return append(b, "</body></html>\n"...)
}

// gzipBomb returns the bomb, building it on first use.
func (s *Server) gzipBomb() []byte {
	s.bombOnce.Do(func() { s.bomb = Bomb(s.cfg.BombSize) })
	return s.bomb
}

// Bomb returns a gzip member that inflates to size bytes of zeros, size rounded up to a whole
// MiB. It is built without compressing size bytes: one MiB of zeros is compressed once, after
// a first MiB that fills the 32 KiB window with zeros, and its byte-aligned deflate blocks are
// repeated (they refer only to zeros, so they inflate the same wherever they stand).
func Bomb(size int64) []byte {
	const unit = 1 << 20
	n := max((size+unit-1)/unit, 1)
	zeros := make([]byte, unit)

	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.Write(zeros)
	zw.Flush()
	first := out.Len()
	zw.Write(zeros)
	zw.Flush()
	block := append([]byte(nil), out.Bytes()[first:]...)
	for i := int64(2); i < n; i++ {
		out.Write(block)
	}
	if n == 1 {
		// One MiB only: the first segment alone, as written.
		out.Truncate(first)
	}
	// The last, empty, final block and the trailer, as gzip.Writer.Close writes them.
	out.Write([]byte{0x03, 0x00})
	var crc uint32
	for range n {
		crc = crc32.Update(crc, crc32.IEEETable, zeros)
	}
	var trailer [8]byte
	putLE32(trailer[:4], crc)
	putLE32(trailer[4:], uint32(n*unit))
	out.Write(trailer[:])
	return out.Bytes()
}

func putLE32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
