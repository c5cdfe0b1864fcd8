// Package proctree reads the memory of a process and its descendants from /proc (Linux), for
// the benchmarks that measure a browser's processes: a test's own process tree includes the
// Chromium it starts.
package proctree

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Tree lists pid and all its descendants; none for pid 0, or where /proc cannot be read.
func Tree(pid int) []int {
	if pid == 0 {
		return nil
	}
	parent := map[int]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		p, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces; fields follow the last ')'.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) > 1 {
			if pp, err := strconv.Atoi(fields[1]); err == nil {
				parent[p] = pp
			}
		}
	}
	var out []int
	for p := range parent {
		for q := p; q != 0; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
			if _, ok := parent[q]; !ok {
				break
			}
		}
	}
	return out
}

// Memory reads the resident set size and proportional set size (bytes) of pid from
// /proc/PID/smaps_rollup; zeros when it cannot.
func Memory(pid int) (rss, pss int64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "Rss":
			rss = kb << 10
		case "Pss":
			pss = kb << 10
		}
	}
	return rss, pss
}

// TreeMemory sums the RSS and PSS (bytes) of pid and all its descendants. RSS counts a page
// shared by several processes once in each (it overstates); PSS divides it among them.
func TreeMemory(pid int) (rss, pss int64) {
	for _, p := range Tree(pid) {
		r, s := Memory(p)
		rss += r
		pss += s
	}
	return rss, pss
}
