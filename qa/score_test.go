package qa

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWords(t *testing.T) {
	got := Words("Static heading — Text in a web-font. JSON item #1, ÉTÉ 2026! naïve café")
	want := []string{"static", "heading", "text", "in", "a", "web", "font", "json", "item", "1", "été", "2026", "naïve", "café"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestTextScore(t *testing.T) {
	for _, tc := range []struct {
		name             string
		capture, replay  string
		want             float64
		wantCap, wantRep int
	}{
		{"the same", "Static heading. Text in a web font.", "Static heading. Text in a web font.", 1, 7, 7},
		{"case, punctuation and white space do not count", "Static heading. Text!", "static   HEADING text", 1, 3, 3},
		{"order does not count", "one two three", "three one two", 1, 3, 3},
		// The plain crawl's page against its replay once the script's list is there.
		{"words added", "a b c d", "a b c d e f", 2 * 4.0 / 10, 4, 6},
		{"words missing", "a b c d e f", "a b c d", 2 * 4.0 / 10, 6, 4},
		// A word counts as often as it is in both.
		{"repeated words", "item item item", "item", 2 * 1.0 / 4, 3, 1},
		{"nothing shared", "alpha beta", "gamma delta", 0, 2, 2},
		{"both empty", "", " .,; ", 1, 0, 0},
		{"the replay empty", "some text", "", 0, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, c, r := TextScore(tc.capture, tc.replay)
			if math.Abs(got-tc.want) > 1e-9 || c != tc.wantCap || r != tc.wantRep {
				t.Errorf("TextScore = %v (%d, %d words), want %v (%d, %d)", got, c, r, tc.want, tc.wantCap, tc.wantRep)
			}
		})
	}
}

// pngOf draws a w x h PNG: the colour of each pixel is paint's.
func pngOf(t testing.TB, w, h int, paint func(x, y int) color.Color) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, paint(x, y))
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// compare decodes two PNGs and compares them.
func compare(t *testing.T, capture, replay []byte) (float64, *image.Paletted, error) {
	t.Helper()
	a, err := Decode(capture)
	if err != nil {
		return 0, nil, err
	}
	b, err := Decode(replay)
	if err != nil {
		return 0, nil, err
	}
	score, diff := Compare(a, b)
	return score, diff, nil
}

func TestCompare(t *testing.T) {
	white := func(int, int) color.Color { return color.White }
	red := color.RGBA{255, 0, 0, 255}
	base := pngOf(t, 40, 20, white)
	for _, tc := range []struct {
		name             string
		capture, replay  []byte
		want             float64
		wantW, wantH     int
		redAt, greyAt    image.Point
		checkRed, checkG bool
	}{
		{name: "the same", capture: base, replay: base, want: 1, wantW: 40, wantH: 20, greyAt: image.Pt(3, 3), checkG: true},
		{name: "the left half differs", capture: base, replay: pngOf(t, 40, 20, func(x, _ int) color.Color {
			if x < 20 {
				return color.Black
			}
			return color.White
		}), want: 0.5, wantW: 40, wantH: 20, redAt: image.Pt(5, 5), greyAt: image.Pt(30, 5), checkRed: true, checkG: true},
		// A difference under the threshold (anti-aliasing, a slightly other grey) matches.
		{name: "a faint difference", capture: base, replay: pngOf(t, 40, 20, func(int, int) color.Color { return color.RGBA{250, 250, 250, 255} }),
			want: 1, wantW: 40, wantH: 20},
		// Other sizes: both scaled to the smaller width and height; one row of 20 differs.
		{name: "another size", capture: pngOf(t, 80, 40, white), replay: pngOf(t, 40, 20, func(_, y int) color.Color {
			if y == 0 {
				return red
			}
			return color.White
		}), want: 19.0 / 20, wantW: 40, wantH: 20, redAt: image.Pt(10, 0), checkRed: true},
		// A translucent pixel is blended with white first.
		{name: "transparent is white", capture: base, replay: pngOf(t, 40, 20, func(int, int) color.Color { return color.NRGBA{0, 0, 0, 0} }),
			want: 1, wantW: 40, wantH: 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, diff, err := compare(t, tc.capture, tc.replay)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("score %v, want %v", got, tc.want)
			}
			if diff.Bounds().Dx() != tc.wantW || diff.Bounds().Dy() != tc.wantH {
				t.Errorf("difference %v, want %dx%d", diff.Bounds(), tc.wantW, tc.wantH)
			}
			if c := color.RGBAModel.Convert(diff.At(tc.redAt.X, tc.redAt.Y)); tc.checkRed && c != red {
				t.Errorf("a pixel that differs is %v, want red", c)
			}
			if c := color.RGBAModel.Convert(diff.At(tc.greyAt.X, tc.greyAt.Y)).(color.RGBA); tc.checkG && (c.R != c.G || c.G != c.B || c.R < 240) {
				t.Errorf("a pixel that matches is %v, want light grey", c)
			}
		})
	}
	if _, err := Decode([]byte("not a png")); !errors.Is(err, ErrImage) {
		t.Errorf("not a PNG: %v, want ErrImage", err)
	}
}

func TestThumbnail(t *testing.T) {
	for _, tc := range []struct {
		w, h, wantW, wantH int
	}{
		{1366, 768, 320, 180},
		{640, 4000, 320, 2000},
		{200, 100, 200, 100},
	} {
		img, err := Decode(pngOf(t, tc.w, tc.h, func(x, _ int) color.Color { return color.Gray{uint8(x)} }))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Thumbnail(img)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Width != tc.wantW || cfg.Height != tc.wantH {
			t.Errorf("%dx%d: thumbnail %dx%d, want %dx%d", tc.w, tc.h, cfg.Width, cfg.Height, tc.wantW, tc.wantH)
		}
	}
}

// TestResample: a box filter keeps the mean: a 2-pixel-wide stripe pattern scaled to half is
// its mean grey, a third of a uniform image is that colour.
func TestResample(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 6, 3))
	for y := range 3 {
		for x := range 6 {
			v := uint8(0)
			if x%2 == 1 {
				v = 200
			}
			src.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	got := resample(src, 3, 3)
	for x := range 3 {
		if c := got.RGBAAt(x, 1); c != (color.RGBA{100, 100, 100, 255}) {
			t.Errorf("pixel %d: %v, want the mean", x, c)
		}
	}
	got = resample(src, 2, 1) // three columns each: 0, 200, 0 and 200, 0, 200
	if a, b := got.RGBAAt(0, 0), got.RGBAAt(1, 0); a.R != 67 || b.R != 133 {
		t.Errorf("%v %v, want 67 and 133", a, b)
	}
}

// BenchmarkCompare is the work qa does per page with a screenshot taken at capture: decode two
// screenshots of the default viewport, compare them, make two thumbnails and encode the
// difference.
func BenchmarkCompare(b *testing.B) {
	shot := pngOf(b, 1366, 768, func(x, y int) color.Color { return color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255} })
	other := pngOf(b, 1366, 768, func(x, y int) color.Color {
		if y > 400 {
			return color.White
		}
		return color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255}
	})
	b.ResetTimer()
	for range b.N {
		a, err := Decode(shot)
		if err != nil {
			b.Fatal(err)
		}
		r, err := Decode(other)
		if err != nil {
			b.Fatal(err)
		}
		_, diff := Compare(a, r)
		if _, err := Thumbnail(a); err != nil {
			b.Fatal(err)
		}
		if _, err := Thumbnail(r); err != nil {
			b.Fatal(err)
		}
		if _, err := encodePNG(diff); err != nil {
			b.Fatal(err)
		}
	}
}
