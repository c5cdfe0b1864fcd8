// Tools the tests run but amber does not import, pinned here so that the main module's
// dependencies do not change: internetarchive/gowarc's `warc` command (`warc verify`, a third
// independent WARC reader). `make tools` builds it into bin/gowarc-ia.
module github.com/amber-crawler/amber/internal/tools

go 1.26.8

tool github.com/internetarchive/gowarc/cmd/warc

require (
	github.com/andybalholm/brotli v1.1.1 // indirect
	github.com/dolthub/maphash v0.1.0 // indirect
	github.com/gammazero/deque v1.0.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/internetarchive/gowarc v0.8.101 // indirect
	github.com/klauspost/compress v1.19.0 // indirect
	github.com/klauspost/cpuid/v2 v2.0.12 // indirect
	github.com/maypok86/otter v1.2.4 // indirect
	github.com/miekg/dns v1.1.72 // indirect
	github.com/refraction-networking/utls v1.8.2 // indirect
	github.com/remeh/sizedwaitgroup v1.0.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/ulikunitz/xz v0.5.15 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/zeebo/blake3 v0.2.4 // indirect
	golang.org/x/crypto v0.53.0 // indirect
	golang.org/x/mod v0.31.0 // indirect
	golang.org/x/net v0.56.0 // indirect
	golang.org/x/sync v0.21.0 // indirect
	golang.org/x/sys v0.46.0 // indirect
	golang.org/x/tools v0.40.0 // indirect
)
