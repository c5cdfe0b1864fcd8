package warc

// SortLines is SortCDXJ with its run size (bytes sorted in memory at a time) and merge fan-in
// (runs merged at once) chosen by the test, to exercise the external merge on small inputs.
var SortLines = sortLines
