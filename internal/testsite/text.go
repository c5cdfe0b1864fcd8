package testsite

import (
	"math"
	"strings"
	"sync"
)

// Text that compresses about as written English does (gzip level 6: 2.6 to 3 to 1), for
// generated pages of a realistic size. Words are made of syllables and drawn with a Zipf-like
// law (rank r with probability about 1/r) from a vocabulary of vocabSize, in sentences of 6 to
// 22 words and paragraphs of 3 to 8 sentences. Repeating one sentence would compress 20 to 1 or
// better, and make a page's compression (a large part of a crawler's work) look far cheaper
// than on real pages.
const (
	vocabSize = 5000
	// paragraphPool is how many distinct paragraphs pages draw from: made once, so serving a
	// page costs little besides copying (the bench's server shares the machine with the
	// crawler it serves).
	paragraphPool = 4096
)

var (
	textOnce   sync.Once
	vocabulary []string
	phrases    []string
	paragraphs []string
)

// phraseCount is how many phrases of 2 to 4 words (drawn from the vocabulary) sentences draw
// from besides single words, with the same Zipf-like law: written text repeats word sequences
// ("of the", "at the end of"), not only words, and gzip finds them.
const phraseCount = 800

// phrasePercent is how often a sentence's next word is a phrase.
const phrasePercent = 35

// rng is splitmix64: a fixed sequence for a seed, so that page i is the same on every run.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// zipf returns a rank in [0, n) with probability falling as 1/rank.
func (r *rng) zipf(n int) int {
	u := float64(r.next()>>11) / (1 << 53)
	k := int(math.Exp(u*math.Log(float64(n+1)))) - 1
	return min(k, n-1)
}

var (
	onsets = []string{"", "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "w",
		"br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr", "wh"}
	vowels = []string{"a", "e", "i", "o", "u", "a", "e", "i", "o", "ea", "ou", "ai", "y"}
	codas  = []string{"", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "rt", "ck"}
)

// common are the most frequent words of written English, most frequent first: the head of the
// vocabulary, which makes half of a text as it does of English.
var common = strings.Fields(`the of and to a in is that for it as was with be by on not he this are or
his from at which but have an they you were her she there one all we their has been would when
if more will no out so said what up its about into than them can only other new some could time
these two may then do first any my now such like our over man me even most made after also did
many before must through back years where much your way well down should because each just those
people how too little state good very make world still own see men work long get here between
both life being under never day same another know while last might us great old year off come
since against go came right used take three`)

// text makes the vocabulary and the paragraph pool once.
func text() {
	textOnce.Do(func() {
		r := rng(1)
		seen := make(map[string]bool, vocabSize)
		for _, w := range common {
			seen[w] = true
		}
		vocabulary = append(vocabulary, common...)
		for len(vocabulary) < vocabSize {
			var b strings.Builder
			// Frequent words are short, as in English.
			syl := 1 + r.intn(1+min(2, len(vocabulary)/1000))
			for range syl {
				b.WriteString(onsets[r.intn(len(onsets))])
				b.WriteString(vowels[r.intn(len(vowels))])
				b.WriteString(codas[r.intn(len(codas))])
			}
			if w := b.String(); !seen[w] {
				seen[w] = true
				vocabulary = append(vocabulary, w)
			}
		}
		for range phraseCount {
			n := 2 + r.intn(3)
			w := make([]string, n)
			for i := range w {
				w[i] = vocabulary[r.zipf(vocabSize)]
			}
			phrases = append(phrases, strings.Join(w, " "))
		}
		paragraphs = make([]string, paragraphPool)
		var b strings.Builder
		for i := range paragraphs {
			b.Reset()
			for s := range 3 + r.intn(6) {
				if s > 0 {
					b.WriteByte(' ')
				}
				sentence(&b, &r)
			}
			paragraphs[i] = b.String()
		}
	})
}

// sentence writes one sentence of 6 to 22 words.
func sentence(b *strings.Builder, r *rng) {
	n := 6 + r.intn(17)
	for i := range n {
		w := vocabulary[r.zipf(vocabSize)]
		if r.intn(100) < phrasePercent {
			w = phrases[r.zipf(phraseCount)]
		}
		if i == 0 {
			b.WriteString(strings.ToUpper(w[:1]))
			b.WriteString(w[1:])
		} else {
			b.WriteByte(' ')
			b.WriteString(w)
		}
		if i > 0 && i < n-2 && r.intn(12) == 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte(".!?."[r.intn(4)])
}

// words returns n words of the vocabulary drawn with r, joined by spaces.
func words(r *rng, n int) string {
	text()
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocabulary[r.zipf(vocabSize)])
	}
	return b.String()
}
