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
	"archive/tar"
	"bytes"
	"encoding/pem"
	"io"
	"os"
	"path"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// Paths inside the image.
const (
	// BinaryPath is where the provider binary lives, and the entrypoint.
	BinaryPath = "/usr/local/bin/provider"
	// CABundlePath is where Go's crypto/x509 looks first on Linux.
	CABundlePath = "/etc/ssl/certs/ca-certificates.crt"
	// TempDir holds the provider's default --cache-dir ($TMPDIR/provider-git,
	// TMPDIR unset). Crossplane runs provider containers as uid 2000
	// whatever the image's user, so it is world-writable with the sticky
	// bit, like a Linux /tmp.
	TempDir = "/tmp"
	// User is the image's own non-root user (distroless' "nonroot"), for
	// runtimes that honour it.
	User = "65532:65532"
)

const (
	errReadBinary = "cannot read the provider binary"
	errTar        = "cannot write the image layer"
	errLayer      = "cannot make the image layer"
	errAppend     = "cannot add the layer to the image"
	errConfig     = "cannot read the image configuration"
	errSetConfig  = "cannot set the image configuration"
	errNoRoots    = "the CA bundle is empty"
)

// Spec says what one platform's image holds.
type Spec struct {
	// Platform of the binary, e.g. linux/arm64.
	Platform v1.Platform
	// Binary is the path of a statically linked provider binary built for
	// Platform.
	Binary string
	// Labels are OCI annotations on the image configuration (source,
	// version).
	Labels map[string]string
}

// Build returns a FROM-scratch image: one layer with the provider binary, a
// CA bundle and a writable /tmp, and a configuration that runs the binary as
// a non-root user. Every timestamp is the Unix epoch and every entry is
// written in a fixed order, so the same binary always gives the same digest.
func Build(s Spec) (v1.Image, error) {
	bin, err := os.ReadFile(s.Binary)
	if err != nil {
		return nil, errors.Wrap(err, errReadBinary)
	}
	ca, err := CABundle()
	if err != nil {
		return nil, err
	}
	layerTar, err := rootFS(bin, ca)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, errors.Wrap(err, errLayer)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{CreatedBy: "provider-git cluster/image", Created: v1.Time{Time: time.Unix(0, 0).UTC()}},
	})
	if err != nil {
		return nil, errors.Wrap(err, errAppend)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, errors.Wrap(err, errConfig)
	}
	cf = cf.DeepCopy()
	cf.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cf.OS = s.Platform.OS
	cf.Architecture = s.Platform.Architecture
	cf.Variant = s.Platform.Variant
	cf.Config = v1.Config{
		Entrypoint: []string{BinaryPath},
		User:       User,
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=" + CABundlePath},
		Labels:     s.Labels,
	}
	img, err = mutate.ConfigFile(img, cf)
	return img, errors.Wrap(err, errSetConfig)
}

// CABundle returns Mozilla's root certificates, as the Go project publishes
// them in golang.org/x/crypto/x509roots/fallback (pinned in go.mod), PEM
// encoded. Roots that carry a distrust-after constraint are left out: a PEM
// file cannot express the constraint, and trusting them unconditionally would
// be wider than Mozilla's own store.
func CABundle() ([]byte, error) {
	var b bytes.Buffer
	for r := range bundle.Roots() {
		if r.Constraint != nil {
			continue
		}
		if err := pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate}); err != nil {
			return nil, errors.Wrap(err, errTar)
		}
	}
	if b.Len() == 0 {
		return nil, errors.New(errNoRoots)
	}
	return b.Bytes(), nil
}

// entry is one file or directory of the image's file system.
type entry struct {
	name string
	mode int64
	dir  bool
	data []byte
}

// rootFS returns the layer as an uncompressed tar: parents before children,
// owned by root, epoch timestamps.
func rootFS(bin, ca []byte) ([]byte, error) {
	entries := []entry{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: path.Clean(CABundlePath)[1:], mode: 0o644, data: ca},
		{name: TempDir[1:] + "/", mode: 0o1777, dir: true},
		{name: "usr/", mode: 0o755, dir: true},
		{name: "usr/local/", mode: 0o755, dir: true},
		{name: "usr/local/bin/", mode: 0o755, dir: true},
		{name: path.Clean(BinaryPath)[1:], mode: 0o755, data: bin},
	}
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	epoch := time.Unix(0, 0).UTC()
	for _, e := range entries {
		h := &tar.Header{
			Name:    e.name,
			Mode:    e.mode,
			ModTime: epoch,
		}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, errors.Wrap(err, errTar)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, errors.Wrap(err, errTar)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, errors.Wrap(err, errTar)
	}
	return b.Bytes(), nil
}
