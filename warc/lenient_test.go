package warc

import "testing"

func TestLenientHead(t *testing.T) {
	tests := []struct {
		name, header string
		status       int
		mime         string
		hasMime      bool
	}{
		{"line without a colon", "HTTP/1.1 200 OK\r\nThis line is not a header field\r\nContent-Type: text/html; charset=utf-8\r\n\r\n", 200, "text/html", true},
		{"no content type", "HTTP/1.0 404 Not Found\r\nbroken\r\n\r\n", 404, "", false},
		{"bare LF", "HTTP/1.1 301 Moved\nLocation: /x\nnope\ncontent-type: text/plain\n\n", 301, "text/plain", true},
		{"not HTTP", "ICY 200 OK\r\n\r\n", 0, "", false},
		{"bad status", "HTTP/1.1 2OO OK\r\n\r\n", 0, "", false},
		{"empty", "", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, mime, has := lenientHead([]byte(tt.header))
			if status != tt.status || mime != tt.mime || has != tt.hasMime {
				t.Errorf("lenientHead = %d, %q, %v; want %d, %q, %v", status, mime, has, tt.status, tt.mime, tt.hasMime)
			}
		})
	}
}
