/*
Copyright 2026 The provider-git Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command firstopen is the engine's first open of a repository in a
// process of its own, as a resource's first Ready costs it: open the
// clone, refresh one branch, read one file, exit. The benchmarks of
// internal/git build it and run it under GNU time, as they run git, so
// the two peaks are the same figure (ru_maxrss of a process that links
// only what it runs). It prints one line, "RESULT {json}": its RSS before
// it opened the clone, and at the end.
//
// The credentials come from FIRSTOPEN_USER and FIRSTOPEN_TOKEN, never
// from the command line.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/git"
)

// timeout bounds the whole open, far above what the benchmarks take.
const timeout = 30 * time.Minute

// result is what the benchmark reads back.
type result struct {
	// BaseKiB is the RSS before the clone was opened: the runtime and the
	// engine's code, which git's process has its own of.
	BaseKiB int64
	// HWMKiB is the process's peak RSS (VmHWM), as it saw it.
	HWMKiB int64
	// SysKiB is what the Go runtime obtained from the system by the end.
	SysKiB int64
	// AnonKiB and FileKiB split the RSS at the end: memory the process
	// wrote, and pages of files it mapped (its own code and data).
	AnonKiB, FileKiB int64
}

func main() {
	url := flag.String("url", "", "the repository's URL")
	dir := flag.String("dir", "", "the cache directory")
	branch := flag.String("branch", "main", "the branch refreshed")
	path := flag.String("path", "", "the file read at the branch's head")
	depth := flag.Int("depth", git.DefaultHistoryDepth, "commits of history fetched; 0 for the whole history")
	profile := flag.String("profile", "", "a directory to write engine.cpu and engine.mem (the heap profile when the live heap was largest) to")
	flag.Parse()
	if err := run(*url, *dir, *branch, *path, *depth, *profile); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(url, dir, branch, path string, depth int, profile string) error {
	res := result{BaseKiB: statusKiB("VmRSS")}
	if profile != "" {
		peak := startPeakHeap()
		defer func() {
			if err := peak.write(filepath.Join(profile, "engine.mem")); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
		}()
		f, err := os.Create(filepath.Join(profile, "engine.cpu"))
		if err != nil {
			return err
		}
		defer f.Close() //nolint:errcheck // a profile, written before
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := git.NewCache(dir, git.WithHistoryDepth(depth))
	if err != nil {
		return err
	}
	defer c.Close()
	r, err := c.Repository(git.Remote{URL: url, Auth: &git.BasicAuth{Username: os.Getenv("FIRSTOPEN_USER"), Password: os.Getenv("FIRSTOPEN_TOKEN")}})
	if err != nil {
		return err
	}
	if err := r.Refresh(ctx, 0, branch); err != nil {
		return err
	}
	h, err := r.Head(branch)
	if err != nil {
		return err
	}
	if _, err := r.ReadFile(ctx, h, path); err != nil {
		return err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.HWMKiB, res.SysKiB = statusKiB("VmHWM"), int64(ms.Sys/1024)
	res.AnonKiB, res.FileKiB = statusKiB("RssAnon"), statusKiB("RssFile")
	j, err := json.Marshal(res)
	if err != nil {
		return err
	}
	fmt.Println("RESULT " + string(j))
	return nil
}

// peakHeap keeps the heap profile taken when the live heap was largest,
// sampled every peakEvery: what the process held at its peak.
type peakHeap struct {
	stop chan struct{}
	done chan struct{}
	max  uint64
	prof bytes.Buffer
}

// peakEvery is how often the live heap is sampled; a profile is taken at
// each new high.
const peakEvery = 5 * time.Millisecond

func startPeakHeap() *peakHeap {
	runtime.MemProfileRate = 4096
	p := &peakHeap{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(peakEvery)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > p.max {
				p.max = v
				p.prof.Reset()
				_ = pprof.Lookup("heap").WriteTo(&p.prof, 0)
			}
		}
	}()
	return p
}

// write stops the sampling and writes the profile of the peak to path.
func (p *peakHeap) write(path string) error {
	close(p.stop)
	<-p.done
	fmt.Fprintf(os.Stderr, "largest live heap %d KiB\n", p.max/1024)
	return os.WriteFile(filepath.Clean(path), p.prof.Bytes(), 0o600)
}

// statusKiB reads a figure in kB of /proc/self/status (0 where there is
// none).
func statusKiB(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib
		}
	}
	return 0
}
