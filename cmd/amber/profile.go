package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/amber-crawler/amber/crawl"
)

// profiles are the open files of --cpuprofile and --memprofile; a nil file is a profile not
// asked for.
type profiles struct {
	cpu, mem *os.File
}

// startProfiles creates the files of --cpuprofile and --memprofile (an empty path: that profile
// is not taken) and starts the CPU profile. Both files are created before anything else runs,
// so a path that cannot be written is reported before the crawl starts; on error nothing is
// left open or running. The caller must call stop.
func startProfiles(cpuPath, memPath string) (*profiles, error) {
	p := &profiles{}
	var err error
	if cpuPath != "" {
		if p.cpu, err = os.Create(cpuPath); err != nil {
			return nil, fmt.Errorf("create cpu profile: %w", err)
		}
	}
	if memPath != "" {
		if p.mem, err = os.Create(memPath); err != nil {
			p.close()
			return nil, fmt.Errorf("create memory profile: %w", err)
		}
	}
	if p.cpu != nil {
		if err := pprof.StartCPUProfile(p.cpu); err != nil {
			p.close()
			return nil, fmt.Errorf("start cpu profile: %w", err)
		}
	}
	return p, nil
}

// close closes the files without writing anything more.
func (p *profiles) close() {
	for _, f := range []*os.File{p.cpu, p.mem} {
		if f != nil {
			f.Close()
		}
	}
}

// stop ends the CPU profile and writes the heap profile after a garbage collection, as
// `go test -memprofile` does, so it shows what is live at the end of the run and what was
// allocated over the whole run. It closes both files and returns the first error.
func (p *profiles) stop() error {
	var errs []error
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if err := p.cpu.Close(); err != nil {
			errs = append(errs, fmt.Errorf("write cpu profile: %w", err))
		}
	}
	if p.mem != nil {
		runtime.GC()
		if err := pprof.Lookup("heap").WriteTo(p.mem, 0); err != nil {
			errs = append(errs, fmt.Errorf("write memory profile: %w", err))
		}
		if err := p.mem.Close(); err != nil {
			errs = append(errs, fmt.Errorf("write memory profile: %w", err))
		}
	}
	return errors.Join(errs...)
}

// runProfiled is crawl.Run under the profiles of --cpuprofile and --memprofile: the CPU profile
// covers the whole run, the heap profile is written when it ends. A profile file that cannot be
// created is a usageError, returned before the crawl starts; one that cannot be written at the
// end is an error joined to the crawl's own (exit status 1 when the crawl had none).
func runProfiled(ctx context.Context, cfg crawl.Config, f crawlFlags) (crawl.Result, error) {
	p, err := startProfiles(f.cpuProfile, f.memProfile)
	if err != nil {
		return crawl.Result{}, usageError{err}
	}
	res, err := crawl.Run(ctx, cfg)
	if perr := p.stop(); perr != nil {
		err = errors.Join(err, perr)
	}
	return res, err
}
