package qa

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"strings"
	"unicode"
)

// Words splits a text into the words TextScore compares: maximal runs of letters, marks and
// digits (Unicode), lower-cased. Punctuation, symbols and white space separate words.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
}

// TextScore is the similarity of two texts as bags of words (Words): twice the number of
// words they share, each word counted as often as it is in both (the multiset
// intersection), over the number of words of the two (the Dice coefficient, or F1, of the
// two word multisets). 1 when they have the same words as often, in any order; 0 when they
// share none. Two texts without words score 1; one without words against one with, 0.
// It also returns the number of words of each.
func TextScore(capture, replay string) (score float64, captureWords, replayWords int) {
	a, b := Words(capture), Words(replay)
	if len(a) == 0 && len(b) == 0 {
		return 1, 0, 0
	}
	count := make(map[string]int, len(a))
	for _, w := range a {
		count[w]++
	}
	shared := 0
	for _, w := range b {
		if count[w] > 0 {
			count[w]--
			shared++
		}
	}
	return 2 * float64(shared) / float64(len(a)+len(b)), len(a), len(b)
}

// maxPixels bounds the images ComparePNG and Thumbnail decode (a screenshot of a viewport is
// about a million pixels).
const maxPixels = 40 << 20

// Threshold is the colour difference, as a share of the largest, above which two pixels
// differ: pixelmatch's default (0.1), in its YIQ measure of perceived difference.
const Threshold = 0.1

// ErrImage is wrapped by the errors of images that cannot be compared.
var ErrImage = errors.New("qa: image")

// decodePNG decodes a PNG of at most maxPixels pixels.
func decodePNG(b []byte) (image.Image, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return nil, fmt.Errorf("%w: %dx%d pixels", ErrImage, cfg.Width, cfg.Height)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrImage, err)
	}
	return img, nil
}

// ComparePNG compares the screenshot taken at capture with the one taken in replay, both
// PNG: at their size when they have the same, else both scaled (each output pixel the mean
// of the pixels it covers) to the smaller width and the smaller height. It returns the share
// of pixels that match (their colour difference, YIQ as pixelmatch measures it, is at most
// Threshold of the largest possible) and the difference as an image of the compared size:
// the capture's pixels faded to light grey where they match, red where they differ.
func ComparePNG(capture, replay []byte) (score float64, diff *image.RGBA, err error) {
	a, err := decodePNG(capture)
	if err != nil {
		return 0, nil, fmt.Errorf("capture screenshot: %w", err)
	}
	b, err := decodePNG(replay)
	if err != nil {
		return 0, nil, fmt.Errorf("replay screenshot: %w", err)
	}
	w := min(a.Bounds().Dx(), b.Bounds().Dx())
	h := min(a.Bounds().Dy(), b.Bounds().Dy())
	ra, rb := resample(a, w, h), resample(b, w, h)
	diff = image.NewRGBA(image.Rect(0, 0, w, h))
	maxDelta := 35215 * Threshold * Threshold
	same := 0
	for i := 0; i < len(ra.Pix); i += 4 {
		pa, pb := ra.Pix[i:i+4:i+4], rb.Pix[i:i+4:i+4]
		if colorDelta(pa, pb) <= maxDelta {
			same++
			// Faded: the capture's brightness blended with white, as pixelmatch draws it.
			y := 255 + (luma(pa)-255)*0.1
			v := uint8(y + 0.5)
			copy(diff.Pix[i:i+4], []uint8{v, v, v, 255})
		} else {
			copy(diff.Pix[i:i+4], []uint8{255, 0, 0, 255})
		}
	}
	return float64(same) / float64(w*h), diff, nil
}

// colorDelta is pixelmatch's squared YIQ difference of two opaque RGBA pixels (Kotsarenko and
// Ramos, "Measuring perceived color difference using YIQ NTSC transmission color space in
// mobile applications", 2010), at most 35215; a translucent pixel is blended with white first.
func colorDelta(a, b []uint8) float64 {
	ar, ag, ab := blend(a)
	br, bg, bb := blend(b)
	dy := yOf(ar, ag, ab) - yOf(br, bg, bb)
	di := iOf(ar, ag, ab) - iOf(br, bg, bb)
	dq := qOf(ar, ag, ab) - qOf(br, bg, bb)
	return 0.5053*dy*dy + 0.299*di*di + 0.1957*dq*dq
}

// blend blends a pixel of premultiplied RGBA with white.
func blend(p []uint8) (r, g, b float64) {
	a := float64(p[3]) / 255
	return float64(p[0]) + 255*(1-a), float64(p[1]) + 255*(1-a), float64(p[2]) + 255*(1-a)
}

func yOf(r, g, b float64) float64 { return r*0.29889531 + g*0.58662247 + b*0.11448223 }
func iOf(r, g, b float64) float64 { return r*0.59597799 - g*0.27417610 - b*0.32180189 }
func qOf(r, g, b float64) float64 { return r*0.21147017 - g*0.52261711 + b*0.31114694 }

// luma is a pixel's brightness, blended with white.
func luma(p []uint8) float64 {
	r, g, b := blend(p)
	return yOf(r, g, b)
}

// resample returns img as RGBA (premultiplied) at w x h: copied when it has that size, else
// each output pixel the mean of the source pixels it covers (a box filter, partial pixels
// weighted by their share).
func resample(img image.Image, w, h int) *image.RGBA {
	src := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(src, src.Bounds(), img, img.Bounds().Min, draw.Src)
	sw, sh := src.Bounds().Dx(), src.Bounds().Dy()
	if sw == w && sh == h {
		return src
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	fx, fy := float64(sw)/float64(w), float64(sh)/float64(h)
	for y := range h {
		y0, y1 := float64(y)*fy, float64(y+1)*fy
		for x := range w {
			x0, x1 := float64(x)*fx, float64(x+1)*fx
			var sum [4]float64
			var area float64
			for sy := int(y0); sy < sh && float64(sy) < y1; sy++ {
				wy := min(y1, float64(sy+1)) - max(y0, float64(sy))
				for sx := int(x0); sx < sw && float64(sx) < x1; sx++ {
					wx := min(x1, float64(sx+1)) - max(x0, float64(sx))
					wgt := wx * wy
					o := src.PixOffset(sx, sy)
					for c := range 4 {
						sum[c] += wgt * float64(src.Pix[o+c])
					}
					area += wgt
				}
			}
			o := dst.PixOffset(x, y)
			for c := range 4 {
				dst.Pix[o+c] = uint8(sum[c]/area + 0.5)
			}
		}
	}
	return dst
}

// ThumbnailWidth is the width of the thumbnails of report.html.
const ThumbnailWidth = 320

// Thumbnail returns a PNG of the screenshot png scaled to ThumbnailWidth pixels wide, keeping
// its proportions (a narrower one is kept as it is).
func Thumbnail(b []byte) ([]byte, error) {
	img, err := decodePNG(b)
	if err != nil {
		return nil, err
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	if w > ThumbnailWidth {
		h = max(1, (h*ThumbnailWidth+w/2)/w)
		w = ThumbnailWidth
	}
	return encodePNG(resample(img, w, h))
}

// encodePNG encodes an image fast: the images are the same, somewhat larger.
func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("%w: encode: %v", ErrImage, err)
	}
	return buf.Bytes(), nil
}
