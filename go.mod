module github.com/amber-crawler/amber

go 1.26.8

require (
	github.com/PuerkitoBio/purell v1.2.1
	github.com/andybalholm/cascadia v1.3.3
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/dgraph-io/badger/v4 v4.9.6
	github.com/elastic/go-elasticsearch/v8 v8.19.7
	github.com/google/go-cmp v0.7.0
	github.com/klauspost/compress v1.18.0
	github.com/ledongthuc/pdf v0.0.0-20240201131950-da5b75280b06
	github.com/nlnwa/gowarc/v2 v2.0.1
	github.com/nlnwa/whatwg-url v0.5.0
	github.com/redis/go-redis/v9 v9.23.0
	github.com/temoto/robotstxt v1.1.2
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/net v0.62.0
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.43.0
)

require (
	github.com/bits-and-blooms/bitset v1.14.3 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgraph-io/ristretto/v2 v2.2.0 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/elastic/elastic-transport-go/v8 v8.9.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/google/flatbuffers v25.2.10+incompatible // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/prometheus/prometheus v0.55.0 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.41.0 // indirect
	go.opentelemetry.io/otel/metric v1.41.0 // indirect
	go.opentelemetry.io/otel/trace v1.41.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	google.golang.org/protobuf v1.36.7 // indirect
)
