package scope

// isTrap is the Standard flavour's trap rule (§4.1 step 4): the fixed rule (isTrap), or with
// Config.MaxPathRepeats more than 20 segments or a sequence of segments repeated more than
// that many times in a row (repeatsPattern).
func (s *Scope) isTrap(pathq string) bool {
	if s.repeats == 0 {
		return isTrap(pathq)
	}
	return repeatsPattern(pathq, s.repeats)
}

// repeatsPattern reports whether a path (query and fragment excluded, segments read as
// isTrap reads them) has more than maxPathSegments segments, or a sequence of one or more
// segments that follows itself more than n times: with n = 2, "/x/a/a/a" ("a" 3 times),
// "/a/b/a/b/a/b/" ("a/b" 3 times), not "/a/b/a/b/c". It costs O(segments²) at most, with
// segments bounded by maxPathSegments, and allocates nothing.
func repeatsPattern(pathq string, n int) bool {
	if len(pathq) == 0 || pathq[0] != '/' {
		return false
	}
	var segs [maxPathSegments][2]int // start and end of each segment in pathq
	count := 0
	start := 1
	for i := 1; i <= len(pathq); i++ {
		if i < len(pathq) && pathq[i] != '/' && pathq[i] != '?' && pathq[i] != '#' {
			continue
		}
		last := i == len(pathq) || pathq[i] != '/'
		if last && i == start {
			break // the empty part after a final slash is not a segment
		}
		if count == maxPathSegments {
			return true
		}
		segs[count] = [2]int{start, i}
		count++
		if last {
			break
		}
		start = i + 1
	}
	seg := func(i int) string { return pathq[segs[i][0]:segs[i][1]] }
	for size := 1; size*(n+1) <= count; size++ {
		// run counts the segments so far that equal the one size places before.
		run := 0
		for i := size; i < count; i++ {
			if seg(i) != seg(i-size) {
				run = 0
				continue
			}
			run++
			// size segments repeated n more times after the first occurrence.
			if run >= size*n {
				return true
			}
		}
	}
	return false
}
