# amber — make demo: crawl the bundled example site; make test: the whole test suite;
# make test-short: the tests without Chromium; make vet: go vet, staticcheck, gofmt and go mod tidy -diff.

GO       ?= go
BIN      := bin
AMBER    := $(BIN)/amber
TESTSITE := $(BIN)/testsite
GOWARC_IA := $(BIN)/gowarc-ia
ZINCSEARCH := $(BIN)/zincsearch
ZINCSEARCH_VERSION := v0.4.10
FUZZTIME ?= 10s

.PHONY: all build demo test test-short bench bench-scale bench-index bench-frontier bench-hostile hostile fuzz tools vet clean

all: build

build:
	$(GO) build -o $(AMBER) ./cmd/amber
	$(GO) build -o $(TESTSITE) ./internal/testsite/cmd/testsite

# The independent WARC readers the tests use (warcio.js; internetarchive/gowarc's `warc verify`
# as bin/gowarc-ia), ReplayWeb.page's ui.js and sw.js for the replay test (npm pack: only the
# two built files, not the package's dependencies), and the search-index tests' server,
# ZincSearch (Elasticsearch-compatible), as bin/zincsearch.
tools: node_modules/warcio/package.json $(GOWARC_IA) node_modules/.replaywebpage/replaywebpage-2.5.3.tgz $(ZINCSEARCH)

# Built from the separate tools module internal/tools (its own go.mod pins the version), so the
# main module's dependencies do not change.
$(GOWARC_IA): internal/tools/go.mod internal/tools/go.sum
	$(GO) -C internal/tools build -o $(CURDIR)/$@ github.com/internetarchive/gowarc/cmd/warc
	touch $@

# From the Go module proxy, built with Go 1.21 (scripts/zincsearch.sh says why).
$(ZINCSEARCH): scripts/zincsearch.sh
	GO=$(GO) ./scripts/zincsearch.sh $(ZINCSEARCH_VERSION) $@

node_modules/warcio/package.json: package.json
	npm install --no-audit --no-fund
	touch $@

# The tarball is the stamp: it appears only once ui.js and sw.js are unpacked.
node_modules/.replaywebpage/replaywebpage-2.5.3.tgz:
	rm -rf $(@D) && mkdir -p $(@D)/pack
	cd $(@D)/pack && npm pack --silent replaywebpage@2.5.3 >/dev/null
	tar -xzf $(@D)/pack/$(@F) -C $(@D) --strip-components=1 package/ui.js package/sw.js
	mv $(@D)/pack/$(@F) $@ && rmdir $(@D)/pack

demo: build
	./scripts/demo.sh

# go.mod and go.sum must be what go mod tidy makes of the imports; gofmt must change nothing;
# staticcheck (pinned; built from the module proxy on first use) must find nothing.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
vet:
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@test -z "$$(gofmt -l . 2>/dev/null | grep -v '^node_modules/')" || { echo "gofmt needed:"; gofmt -l . | grep -v '^node_modules/'; exit 1; }

test: tools vet
	$(GO) test -race -count=1 -timeout 30m ./...

# The tests without Chromium (browser tests skip with -short) and without the long crawls.
test-short:
	$(GO) test -short -count=1 ./...

# Benchmarks print figures (pages/s, MB/s, decisions/s); they assert nothing. scripts/bench.sh
# crawls a generated 10,000-page site with amber and with wget (Debian package wget, installed
# with apt-get if missing) in one run, for pages of about 5 KB and 30 KB of varied text and the
# small pages of earlier figures (PAGE_SIZES="5000 30000 0"; PAGES=N for another count), and
# prints pages/s, CPU-s per 1,000 pages, peak RSS and the ratio amber/wget for each.
bench: build
	./scripts/bench.sh compare
	$(GO) test -run '^$$' -bench . -benchmem ./scope/ ./crawlrule/ ./sitemap/ ./extract/ ./internal/htmltok/ ./frontier/ ./warc/ ./wacz/ ./replay/ ./fetch/
	$(GO) test -run '^$$' -bench 'LoadPrior|LoadRecrawl' -benchtime 1x ./prior/
	$(GO) test -run '^$$' -bench AddClaimDone -benchtime 50000x ./frontier/redisfront/
	$(GO) test -run '^$$' -bench SharedCrawl -benchtime 1x ./cmd/amber/
	$(GO) test -run '^$$' -bench 'QA|Compare' -benchtime 2x ./qa/

# amber on a generated 1,000,000-page site (SCALE_PAGES=N) of 5 KB pages (PAGE_SIZE=N bytes; 0
# for the small pages), pages/s and RSS every 10 s, stopped at 15 minutes (SCALE_LIMIT) if not
# done.
bench-scale: build
	./scripts/bench.sh scale

# amber with the search-index sink off and on (ZincSearch, bin/zincsearch, on its own core when
# there are two or more), RUNS runs each (default 5) on a PAGES-page site (default 10,000) of
# PAGE_SIZE pages (default 5000): crawling pages/s, the whole run's pages/s and CPU-s per 1,000
# pages, the medians and on/off; then the server's own rate (amber index alone).
bench-index: build $(ZINCSEARCH)
	RUNS=$${RUNS:-5} ./scripts/bench.sh index

# The frontier at scale: 10,000,000 URLs queued over 10,000 hosts through AddBatch (peak RSS,
# anonymous and file-backed RSS, Go heap, store size, adds/s), and the resume of a crawl
# killed with 1,000,000 URLs known, half of them done (milliseconds from Open to the first claim,
# peak RSS of the resume). FRONTIER_URLS=N for another size (both benchmarks). Prints
# figures, asserts nothing; about 10 minutes on 2 cores.
bench-frontier:
	$(GO) test -run '^$$' -bench '^Benchmark(Queued10M|Resume1M)$$' -benchtime 1x -timeout 60m ./frontier/ \
	  $(if $(FRONTIER_URLS),-args -frontier-urls=$(FRONTIER_URLS))

# Peak RSS of amber crawling hostile inputs (200,000 links, gzip bomb, endless body, deep
# nesting, a 100 KB URL), from the child's rusage; prints figures, asserts nothing.
bench-hostile: build
	$(GO) test -run '^$$' -bench '^BenchmarkHostile$$' -benchtime 1x -v ./cmd/amber/

# The hostile-server suite crawled case by case under /usr/bin/time -v: exit status, wall time,
# peak RSS and crawl.log's word on each case (issue 10's table).
hostile:
	./scripts/hostile.sh

# Every fuzz target of the module, found by scripts/fuzz.sh, each for FUZZTIME; a table of
# executions per second at the end. Failing inputs land in testdata/fuzz, run by make test.
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) ./scripts/fuzz.sh

clean:
	rm -rf $(BIN) crawls
