package warc

import "os"

// SortLines is SortCDXJ with its run size (bytes sorted in memory at a time) and merge fan-in
// (runs merged at once) chosen by the test, to exercise the external merge on small inputs.
var SortLines = sortLines

// File is what the Writer writes through; *os.File implements it.
type File = file

// NewWriterCreate is NewWriter with the function that opens its files (the WARC files and the
// CDXJ index), so a test can make writes fail.
func NewWriterCreate(cfg Config, create func(name string, flag int, perm os.FileMode) (File, error)) (*Writer, error) {
	return newWriter(cfg, create)
}
