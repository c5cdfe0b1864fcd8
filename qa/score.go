package qa

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
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

// maxPixels bounds the images Decode reads (a screenshot of a viewport is about a million
// pixels).
const maxPixels = 40 << 20

// Threshold is the colour difference, as a share of the largest, above which two pixels
// differ: pixelmatch's default (0.1), in its YIQ measure of perceived difference.
const Threshold = 0.1

// ErrImage is wrapped by the errors of images that cannot be compared.
var ErrImage = errors.New("qa: image")

// Decode decodes a screenshot (PNG, at most 40 Mi pixels) into RGBA.
func Decode(b []byte) (*image.RGBA, error) {
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
	if rgba, ok := img.(*image.RGBA); ok && rgba.Rect.Min == (image.Point{}) {
		return rgba, nil
	}
	rgba := image.NewRGBA(image.Rect(0, 0, cfg.Width, cfg.Height))
	draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
	return rgba, nil
}

// diffPalette is the palette of the difference images: red for a pixel that differs, and the
// light greys a matching pixel is drawn in (the capture's brightness blended with white to a
// tenth: 229 to 255).
var diffPalette = func() color.Palette {
	p := color.Palette{color.RGBA{255, 0, 0, 255}}
	for v := 229; v <= 255; v++ {
		p = append(p, color.RGBA{uint8(v), uint8(v), uint8(v), 255})
	}
	return p
}()

// Compare compares the screenshot taken at capture with the one taken in replay: at their
// size when they have the same, else both scaled (each output pixel the mean of the pixels it
// covers) to the smaller width and the smaller height. It returns the share of pixels that
// match (their colour difference, YIQ as pixelmatch measures it, is at most Threshold of the
// largest possible) and the difference as an image of the compared size: the capture's pixels
// faded to light grey where they match, red where they differ.
func Compare(capture, replay *image.RGBA) (score float64, diff *image.Paletted) {
	w := min(capture.Rect.Dx(), replay.Rect.Dx())
	h := min(capture.Rect.Dy(), replay.Rect.Dy())
	a, b := resample(capture, w, h), resample(replay, w, h)
	diff = image.NewPaletted(image.Rect(0, 0, w, h), diffPalette)
	maxDelta := 35215 * Threshold * Threshold
	same := 0
	for i, j := 0, 0; i < len(a.Pix); i, j = i+4, j+1 {
		pa, pb := a.Pix[i:i+4:i+4], b.Pix[i:i+4:i+4]
		if [4]uint8(pa) == [4]uint8(pb) || colorDelta(pa, pb) <= maxDelta {
			same++
			// Faded: the capture's brightness blended with white, as pixelmatch draws it.
			diff.Pix[j] = uint8(255+(luma(pa)-255)*0.1+0.5) - 229 + 1
		} else {
			diff.Pix[j] = 0
		}
	}
	return float64(same) / float64(w*h), diff
}

// colorDelta is pixelmatch's squared YIQ difference of two RGBA pixels (Kotsarenko and Ramos,
// "Measuring perceived color difference using YIQ NTSC transmission color space in mobile
// applications", 2010), at most 35215; a translucent pixel is blended with white first.
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

// resample returns src at w x h: src itself when it has that size, else each output pixel
// the mean of the source pixels it covers (a box filter, partial pixels weighted by their
// share), one axis after the other.
func resample(src *image.RGBA, w, h int) *image.RGBA {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	if sw == w && sh == h {
		return src
	}
	// Across: sw x sh to w x sh, in floats; then down: to w x h.
	xs := boxWeights(sw, w)
	row := make([]float64, w*sh*4)
	for y := range sh {
		line := src.Pix[y*src.Stride : y*src.Stride+sw*4]
		for x, ws := range xs {
			var sum [4]float64
			for _, t := range ws {
				p := line[t.i*4 : t.i*4+4 : t.i*4+4]
				for c := range 4 {
					sum[c] += t.w * float64(p[c])
				}
			}
			copy(row[(y*w+x)*4:], sum[:])
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y, ws := range boxWeights(sh, h) {
		for x := range w {
			var sum [4]float64
			for _, t := range ws {
				for c := range 4 {
					sum[c] += t.w * row[(t.i*w+x)*4+c]
				}
			}
			o := y*dst.Stride + x*4
			for c := range 4 {
				dst.Pix[o+c] = uint8(min(255, sum[c]+0.5))
			}
		}
	}
	return dst
}

// tap is a source pixel and its weight in an output pixel.
type tap struct {
	i int
	w float64
}

// boxWeights gives, for each of n output pixels along an axis of src source pixels, the
// source pixels it covers and their shares (summing to 1).
func boxWeights(src, n int) [][]tap {
	out := make([][]tap, n)
	f := float64(src) / float64(n)
	for o := range n {
		lo, hi := float64(o)*f, float64(o+1)*f
		for i := int(lo); i < src && float64(i) < hi; i++ {
			if w := min(hi, float64(i+1)) - max(lo, float64(i)); w > 0 {
				out[o] = append(out[o], tap{i, w / f})
			}
		}
	}
	return out
}

// ThumbnailWidth is the width of the thumbnails of report.html.
const ThumbnailWidth = 320

// Thumbnail returns a PNG of img scaled to ThumbnailWidth pixels wide, keeping its
// proportions (a narrower one is kept as it is).
func Thumbnail(img *image.RGBA) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
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
