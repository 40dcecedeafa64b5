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

// Command image builds provider-git's runtime image without a container
// daemon or a base image: FROM scratch, one layer holding the static provider
// binary, a CA bundle and a writable /tmp (see Build). `make image` runs it
// once for every platform in IMAGE_PLATFORMS and it writes, under -output:
//
//	<os>_<arch>.tar  one image per platform (docker-save format), what
//	                 `crossplane xpkg build --embed-runtime-image-tarball` takes
//	oci/             an OCI image layout holding the multi-platform index
//
// go-containerregistry is used as a library rather than ko: ko builds the
// binary itself and wants a base image from a registry or a daemon, while the
// Makefile already builds the binary and the image needs no base at all.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

const (
	errBinaryFlag = "-binary wants platform=path, e.g. linux/amd64=_output/bin/linux_amd64/provider"
	errNoBinaries = "at least one -binary is required"
	errTag        = "invalid -repository or -tag"
)

// binaries collects repeated -binary platform=path flags.
type binaries []Spec

func (b *binaries) String() string { return fmt.Sprint(len(*b)) }

func (b *binaries) Set(v string) error {
	platform, file, ok := strings.Cut(v, "=")
	if !ok || file == "" {
		return errors.New(errBinaryFlag)
	}
	p, err := v1.ParsePlatform(platform)
	if err != nil || p.OS == "" || p.Architecture == "" {
		return errors.New(errBinaryFlag)
	}
	*b = append(*b, Spec{Platform: *p, Binary: file})
	return nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var bins binaries
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.Var(&bins, "binary", "platform=path of a static provider binary (repeat for each platform)")
	repository := fs.String("repository", "xpkg.crossplane.io/crossplane-contrib/provider-git", "image repository, recorded in the tarballs")
	tag := fs.String("tag", "v0.0.0-dev", "image tag")
	source := fs.String("source", "https://github.com/crossplane-contrib/provider-git", "org.opencontainers.image.source label")
	output := fs.String("output", "_output/image", "directory for the tarballs and the OCI layout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(bins) == 0 {
		return errors.New(errNoBinaries)
	}
	ref, err := name.NewTag(*repository + ":" + *tag)
	if err != nil {
		return errors.Wrap(err, errTag)
	}
	labels := map[string]string{
		"org.opencontainers.image.source":  *source,
		"org.opencontainers.image.version": *tag,
		"org.opencontainers.image.title":   "provider-git",
	}
	for i := range bins {
		bins[i].Labels = labels
	}
	written, err := Write(*output, ref, bins)
	if err != nil {
		return err
	}
	for _, w := range written {
		fmt.Printf("%-12s %s  %.1f MiB compressed  %s\n", w.Platform, w.Digest, float64(w.Size)/(1<<20), w.Path)
	}
	fmt.Printf("%-12s %s\n", "index", *output+"/oci")
	return nil
}
