package warc

import "testing"

func TestIsChunked(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\ntransfer-encoding:CHUNKED\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, \r\n\r\n", true},
		// chunked must be the final coding; anything else is read to the end of the connection.
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nX-Transfer-Encoding: chunked\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Encoding: chunked\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false},
		{"HTTP/1.1 200 OK\n\n", false},
	}
	for _, tt := range tests {
		if got := isChunked([]byte(tt.header)); got != tt.want {
			t.Errorf("isChunked(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
