package frontier

// Badger builds every table, a memtable flush or a table of a compaction's output, in a
// z.Allocator in the Go heap that holds the table's blocks uncompressed and, reserved for
// their compression, about as much again, in buffers doubling from twice the table size: 3.5
// MiB for a compaction table of baseTableSize (about 1 MiB uncompressed), 15.5 MiB for the
// level-0 table of a memtable. A compaction builds several tables at once, one for each key
// range it is split into and those still being written out: at the heap's peak in make
// bench-scale, 14 to 17 allocators and 44 to 54 MB of their buffers. A table done, its
// allocator goes back to a pool of 8 with every buffer it grew, and whatever builder takes it
// next keeps them; the pool frees one only after 2 s without a table built, which a large
// crawl rarely leaves it (badger v4.9.6, db.go: allocPool; table/builder.go: NewTableBuilder;
// ristretto z.AllocatorPool). Badger has no option for the pool and does not export it.
//
// So the table sizes are what bound the builders, at work and pooled: compaction tables of
// baseTableSize (TableSizeMultiplier 1: at every level) and memtables of memTableSize, which
// cannot be much smaller (a transaction is at most 15% of it, and AddBatch writes a URL's
// record, up to MaxRecordSize, twice in one). Smaller tables mean smaller allocators but more
// tables, and every table costs resident pages of its own (see liveTables and trimmer): with
// 128 KiB tables make bench-scale peaked at 159 MB crawling (1,462 tables at the end), against
// 149 MB with 256 KiB (about 770), both with the pool left to badger, before the pages below
// were kept out, at a load average of 9 to 13.
//
// The frontier used to trim badger's pool itself, reaching it through reflect and unsafe from
// a goroutine (every 250 ms: two idle allocators kept, trimmed to 16 table sizes, the others
// released), which a badger upgrade could break silently. It no longer does. The peak RSS
// stays within 150 MB because most of the peaks were pages of the table files, which the
// space gate and the trimmer's own reads mapped into the resident set again (see liveTables
// and trimmer). make bench-scale (1,000,052 pages; 2 cores shared with other engineers' test
// runs, whose load average is given; peak RSS of the crawl and of the reports; pages/s while
// crawling):
//
//	                                        crawl    reports  CPU-s  pages/s  load average
//	pool trimmed (reflect)                  148 MB   127 MB   493    1,942    3 to 10
//	                                        139 MB   130 MB   558    1,815    5 to 7
//	pool left to badger, nothing else       149 MB   127 MB   698    1,211    9 to 13
//	pool left to badger, pages kept out     125 MB   103 MB   690    1,150    6 to 14
//	                                        133 MB    98 MB   776    1,376    6 to 8
//
// It costs CPU: the allocators badger keeps are live heap, about 20 MB more on average than
// the trimmed pool kept (67 MB against 47 after a collection, two 250,000-page crawls run side
// by side), and under an 80 MiB memory limit the collector runs far more often (6,934
// collections against 846): 34 to 39% more CPU-s (228 against 170 side by side at 400,000
// pages; 776 against 558 above). So the crawl's default memory limit is 112 MiB
// (config.DefaultMemoryLimit): make bench-scale in 407 s, 617 CPU-s, peak 140 MB crawling,
// against 408 s, 494 CPU-s, 142 MB with the pool trimmed and 80 MiB (load average 2 to 7).
// Tables of 128 KiB did not help (as many CPU-s at 250,000 pages). Tables without compression
// help the CPU but not the peak: badger records each table's compression in the MANIFEST
// and reads a table as written, so a store could switch, but at 1,000,052 pages they took
// 416 s, 528 CPU-s and a peak of 168 MB (the pages of twice the table bytes written by each
// compaction), with a store of 370 MB against 171.
const (
	// baseTableSize is the size of a table below level 0, compressed (see above).
	baseTableSize = 256 << 10
)
