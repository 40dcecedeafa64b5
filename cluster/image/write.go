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

package main

import (
	"os"
	"path/filepath"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	errOutput   = "cannot prepare the output directory"
	errTarball  = "cannot write the image tarball"
	errSize     = "cannot measure the image"
	errLayout   = "cannot write the OCI layout"
	errPlatform = "two binaries for one platform"
)

// Written describes one platform's image as written.
type Written struct {
	Platform string
	// Digest is the manifest's, as pushed to a registry or read from the
	// OCI layout.
	Digest v1.Hash
	// Config is the configuration's digest, which the tarball keeps.
	Config v1.Hash
	// Size is what a registry stores and a node pulls: manifest,
	// configuration and compressed layers.
	Size int64
	Path string
}

// TarballName is the file name of a platform's image tarball under the
// output directory, e.g. linux_arm64.tar.
func TarballName(p v1.Platform) string {
	n := p.OS + "_" + p.Architecture
	if p.Variant != "" {
		n += "_" + p.Variant
	}
	return n + ".tar"
}

// Write builds the image of every spec, writes each as a tarball tagged ref,
// and writes the OCI layout of the index that holds them all.
func Write(dir string, ref name.Tag, specs []Spec) ([]Written, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, errors.Wrap(err, errOutput)
	}
	seen := map[string]bool{}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	written := make([]Written, 0, len(specs))
	for _, s := range specs {
		if seen[s.Platform.String()] {
			return nil, errors.New(errPlatform)
		}
		seen[s.Platform.String()] = true
		img, err := Build(s)
		if err != nil {
			return nil, err
		}
		file := filepath.Join(dir, TarballName(s.Platform))
		if err := tarball.WriteToFile(file, ref, img); err != nil {
			return nil, errors.Wrap(err, errTarball)
		}
		w, err := describe(img, s.Platform, file)
		if err != nil {
			return nil, err
		}
		written = append(written, w)
		p := s.Platform
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	oci := filepath.Join(dir, "oci")
	// A layout left by an earlier build would keep its stale blobs.
	if err := os.RemoveAll(oci); err != nil {
		return nil, errors.Wrap(err, errOutput)
	}
	p, err := layout.Write(oci, empty.Index)
	if err != nil {
		return nil, errors.Wrap(err, errLayout)
	}
	err = p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref.TagStr()}))
	return written, errors.Wrap(err, errLayout)
}

// describe measures an image as a registry stores it.
func describe(img v1.Image, p v1.Platform, file string) (Written, error) {
	d, err := img.Digest()
	if err != nil {
		return Written{}, errors.Wrap(err, errSize)
	}
	m, err := img.Manifest()
	if err != nil {
		return Written{}, errors.Wrap(err, errSize)
	}
	cfg, err := img.ConfigName()
	if err != nil {
		return Written{}, errors.Wrap(err, errSize)
	}
	raw, err := img.RawManifest()
	if err != nil {
		return Written{}, errors.Wrap(err, errSize)
	}
	size := int64(len(raw)) + m.Config.Size
	for _, l := range m.Layers {
		size += l.Size
	}
	return Written{Platform: p.String(), Digest: d, Config: cfg, Size: size, Path: file}, nil
}
