package report

import "time"

// timelineMax bounds the intervals of the timeline: the interval doubles (1s, 2s, 4s, …) until
// the crawl's lines span at most this many.
const timelineMax = 120

// timeline counts crawl.log lines per interval of time: URLs captured and their bytes, URLs
// that failed. It holds at most timelineMax intervals, whatever the number of lines, so it is
// filled while crawl.log streams by; the lines may come in any order, and the same lines give
// the same timeline.
type timeline struct {
	origin time.Time          // interval 0 starts here
	width  int64              // the interval, in seconds (a power of two); 0 before the first line
	ivs    map[int64]interval // by index from origin
	lo, hi int64              // the first and last index with lines, when ivs is not empty
}

// interval is what the crawl did during one interval.
type interval struct {
	captured, failed, bytes int64
}

// start sets the timeline's origin: the crawl's start, when known. Without it the first line's
// second is the origin.
func (t *timeline) start(origin time.Time) {
	t.origin = origin.Truncate(time.Second)
}

// add counts a crawl.log line.
func (t *timeline) add(l *Line) {
	o := LineOutcome(*l)
	if o != OutcomeCaptured && o != OutcomeFailed {
		return
	}
	if t.width == 0 {
		t.width = 1
		t.ivs = map[int64]interval{}
		if t.origin.IsZero() {
			t.origin = l.Time.Truncate(time.Second)
		}
	}
	secs := floorDiv(l.Time.Sub(t.origin).Nanoseconds(), int64(time.Second))
	k := floorDiv(secs, t.width)
	if len(t.ivs) == 0 {
		t.lo, t.hi = k, k
	}
	for max(t.hi, k)-min(t.lo, k)+1 > timelineMax {
		t.widen()
		k = floorDiv(secs, t.width)
	}
	t.lo, t.hi = min(t.lo, k), max(t.hi, k)
	iv := t.ivs[k]
	if o == OutcomeCaptured {
		iv.captured++
		iv.bytes += max(l.ContentSize(), 0)
	} else {
		iv.failed++
	}
	t.ivs[k] = iv
}

// widen doubles the interval, merging pairs of intervals.
func (t *timeline) widen() {
	t.width *= 2
	ivs := make(map[int64]interval, len(t.ivs)/2+1)
	for k, iv := range t.ivs {
		m := ivs[floorDiv(k, 2)]
		m.captured += iv.captured
		m.failed += iv.failed
		m.bytes += iv.bytes
		ivs[floorDiv(k, 2)] = m
	}
	t.ivs = ivs
	t.lo, t.hi = floorDiv(t.lo, 2), floorDiv(t.hi, 2)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Timeline chart geometry in SVG units.
const (
	tlLeft   = 70  // room for the axis labels
	tlPlotW  = 880 // the bars
	tlWidth  = tlLeft + tlPlotW + 10
	tlURLH   = 140 // the URLs panel
	tlBytesH = 90  // the bytes panel
	tlGap    = 34  // between the panels: the time labels
)

// htmlTimeline is the timeline chart of report.html.
type htmlTimeline struct {
	Bars                  []htmlTimeBar
	Width, Height         int
	URLTop, BytesTop      int // y of the panels
	URLH, BytesH          int
	PlotX, PlotW          int
	MaxURLs, MaxBytes     string
	Start, End, Interval  string
	Captured, Failed      int64
	LabelY, BytesLabelY   int
	EndX, URLMid, BytesMd int
}

// htmlTimeBar is one interval's bars: captured (stacked under failed) and bytes.
type htmlTimeBar struct {
	Title                 string
	X, W                  int
	CapY, CapH, FailY     int
	FailH, BytesY, BytesH int
}

// html lays the timeline out; nil when there is nothing to show.
func (t *timeline) html() *htmlTimeline {
	if len(t.ivs) == 0 {
		return nil
	}
	n := t.hi - t.lo + 1
	var maxURLs, maxBytes int64 = 1, 1
	h := &htmlTimeline{
		Width: tlWidth, URLTop: 4, URLH: tlURLH, BytesH: tlBytesH, PlotX: tlLeft, PlotW: tlPlotW,
		Interval: conventionalDuration(time.Duration(t.width) * time.Second),
	}
	h.BytesTop = h.URLTop + tlURLH + tlGap
	h.Height = h.BytesTop + tlBytesH + tlGap
	h.LabelY = h.URLTop + tlURLH + 16
	h.BytesLabelY = h.BytesTop + tlBytesH + 16
	h.EndX = tlLeft + tlPlotW
	h.URLMid = h.URLTop + 12
	h.BytesMd = h.BytesTop + 12
	for _, iv := range t.ivs {
		maxURLs = max(maxURLs, iv.captured+iv.failed)
		maxBytes = max(maxBytes, iv.bytes)
		h.Captured += iv.captured
		h.Failed += iv.failed
	}
	h.MaxURLs, h.MaxBytes = i64(maxURLs), displayBytes(maxBytes)
	w := float64(tlPlotW) / float64(n)
	scale := func(v, maxV int64, height int) int {
		px := int(float64(v) / float64(maxV) * float64(height))
		if v > 0 && px < 1 {
			px = 1
		}
		return px
	}
	for k := t.lo; k <= t.hi; k++ {
		iv, ok := t.ivs[k]
		if !ok {
			continue
		}
		x0, x1 := tlLeft+int(float64(k-t.lo)*w), tlLeft+int(float64(k-t.lo+1)*w)
		b := htmlTimeBar{X: x0, W: max(x1-x0-1, 1)}
		b.CapH = scale(iv.captured, maxURLs, tlURLH)
		b.FailH = scale(iv.failed, maxURLs, tlURLH)
		b.CapY = h.URLTop + tlURLH - b.CapH
		b.FailY = b.CapY - b.FailH
		b.BytesH = scale(iv.bytes, maxBytes, tlBytesH)
		b.BytesY = h.BytesTop + tlBytesH - b.BytesH
		from := t.origin.Add(time.Duration(k*t.width) * time.Second)
		b.Title = fmtTime(from) + " +" + h.Interval + ": " + i64(iv.captured) + " captured, " +
			i64(iv.failed) + " failed, " + displayBytes(iv.bytes)
		h.Bars = append(h.Bars, b)
	}
	h.Start = fmtTime(t.origin.Add(time.Duration(t.lo*t.width) * time.Second))
	h.End = fmtTime(t.origin.Add(time.Duration((t.hi+1)*t.width) * time.Second))
	return h
}

// Timeline counts crawl.log lines per interval of time, as report.html's timeline does: URLs
// captured and their bytes (content sizes), URLs that failed. It holds at most 120 intervals:
// the interval (1s, 2s, 4s, …) doubles as the lines spread, so it can watch a crawl of any
// length. Lines may come in any order. A Timeline is not safe for concurrent use.
type Timeline struct{ t timeline }

// Interval is what a crawl did during one interval of a Timeline.
type Interval struct {
	Start    time.Time `json:"start"`
	Captured int64     `json:"captured"`
	Failed   int64     `json:"failed"`
	Bytes    int64     `json:"bytes"`
}

// NewTimeline returns an empty timeline whose intervals start at origin (truncated to the
// second); a zero origin means the first line's second.
func NewTimeline(origin time.Time) *Timeline {
	tl := &Timeline{}
	tl.t.start(origin)
	return tl
}

// Add counts a line.
func (tl *Timeline) Add(l Line) { tl.t.add(&l) }

// Intervals returns the length of an interval and the intervals from the first with lines to
// the last, empty ones included.
func (tl *Timeline) Intervals() (time.Duration, []Interval) {
	t := &tl.t
	if len(t.ivs) == 0 {
		return 0, nil
	}
	out := make([]Interval, 0, t.hi-t.lo+1)
	for k := t.lo; k <= t.hi; k++ {
		iv := t.ivs[k]
		out = append(out, Interval{Start: t.origin.Add(time.Duration(k*t.width) * time.Second).UTC(),
			Captured: iv.captured, Failed: iv.failed, Bytes: iv.bytes})
	}
	return time.Duration(t.width) * time.Second, out
}
