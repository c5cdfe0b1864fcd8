package frontier

// Badger builds every table, a memtable flush or a table of a compaction's output, in a
// z.Allocator in the Go heap that holds the table's blocks uncompressed and, reserved for
// their compression, about as much again, in buffers doubling from twice the table size: 3.5
// MiB for a compaction table of baseTableSize (about 1 MiB uncompressed), 7.5 MiB for the
// level-0 table of a memtable of memTableSize. A compaction builds several tables at once, one for each key
// range it is split into and those still being written out: at the heap's peak in make
// bench-scale, 14 to 17 allocators and 44 to 54 MB of their buffers. A table done, its
// allocator goes back to a pool of 8 with every buffer it grew, and whatever builder takes it
// next keeps them; the pool frees one only after 2 s without a table built, which a large
// crawl rarely leaves it (badger v4.9.6, db.go: allocPool; table/builder.go: NewTableBuilder;
// ristretto z.AllocatorPool). Badger has no option for the pool and does not export it.
//
// So the table sizes are what bound the builders, at work and pooled: compaction tables of
// baseTableSize (TableSizeMultiplier 1: at every level) and memtables of memTableSize. The
// level-0 table of a memtable is the largest: its builder holds the memtable's entries
// uncompressed and their compression, about 2.2 times the memtable's data, and a flush takes
// any allocator from the pool and grows it to that, so that after a few flushes every pooled
// allocator has the level-0 size. With memtables of 8 MiB that was 15.5 MiB each and the pool
// 95 MB of the Go heap at the peak of make bench-scale; with 4 MiB, 7.5 MiB and 41 MB. A
// transaction is at most 15% of a memtable, and AddBatch writes a URL's record, up to
// MaxRecordSize, twice in one: memtables of 2 MiB hold records of 128 KiB. Smaller tables
// mean smaller allocators but more tables, and every table costs resident pages of its own
// (see liveTables and trimmer): with 128 KiB compaction tables make bench-scale peaked at 159
// MB crawling (1,462 tables at the end), against 149 MB with 256 KiB (about 770).
//
// The frontier used to trim badger's pool itself, reaching it through reflect and unsafe from
// a goroutine (every 250 ms: two idle allocators kept, trimmed to 16 table sizes, the others
// released), which a badger upgrade could break silently. It no longer does: the memtable
// size bounds the pool instead. The allocators badger keeps are live heap, and under the
// crawl's memory limit (config.DefaultMemoryLimit) the collector runs more often the more of
// it they take. make bench-scale on small pages (PAGE_SIZE=0: 1,000,052 pages, 2 cores; wall
// time, CPU-s, peak RSS crawling):
//
//	                                                   wall    CPU-s  peak RSS
//	pool trimmed (reflect), 8 MiB memtables, 80 MiB    443 s   616    143 MB
//	pool left to badger, 8 MiB memtables, 112 MiB      406 s   575    148 MB
//	pool left to badger, 4 MiB memtables, 112 MiB      354 s   476    151 MB
//	pool left to badger, 4 MiB memtables, 96 MiB       376 s   517    131 MB
//
// (the last three with gzip members of fixed codes for short WARC records, the last with the
// allocation pools of fetch, extract and warc too; 2026-12-07.) With
// 8 MiB memtables, pooled allocators made the live heap 60 to 70 MB and a limit near it had
// the collector run all the time (96 MiB: 769 CPU-s, 80 MiB: 1,033). Tables without
// compression help the CPU but not the peak: at 1,000,052 pages they took 416 s, 528 CPU-s and
// a peak of 168 MB (the pages of twice the table bytes written by each compaction), with a
// store of 370 MB against 171 (badger records each table's compression in the MANIFEST and
// reads a table as written, so a store could switch). On pages of 5 KB (1,000,000 pages,
// PAGE_SIZE 5000, 96 MiB), where badger's share of the heap is the same and the crawl's own
// is larger, 4 MiB memtables had the live heap at 80 MB, 53 MB of it builders, and the
// collector ran 4,000 times in the first 40 s; with 2 MiB, 800 times:
//
//	                                                   wall    CPU-s  peak RSS
//	4 MiB memtables, 96 MiB                            584 s   878    170 MB
//	2 MiB memtables, 96 MiB                            475 s   717    176 MB
//	2 MiB memtables, 80 MiB                            589 s   848    163 MB
//
// So a crawl's memtables are of 2 MiB under a limit below largeMemTableLimit (memTableFor).
const (
	// baseTableSize is the size of a table below level 0, compressed (see above).
	baseTableSize = 256 << 10
)
