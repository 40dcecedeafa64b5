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
	"crypto/x509"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// fakeBinary writes a stand-in for the provider binary.
func fakeBinary(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "provider")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// header is what the test checks of each tar entry.
type header struct {
	Mode    int64
	Dir     bool
	UID     int
	GID     int
	ModTime time.Time
}

// files reads the single layer of img.
func files(t *testing.T, img v1.Image) (map[string]header, map[string][]byte) {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("want one layer, got %d (%v)", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	headers, contents := map[string]header{}, map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		headers[h.Name] = header{Mode: h.Mode, Dir: h.Typeflag == tar.TypeDir, UID: h.Uid, GID: h.Gid, ModTime: h.ModTime.UTC()}
		if h.Typeflag == tar.TypeReg {
			if contents[h.Name], err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	return headers, contents
}

func TestBuild(t *testing.T) {
	epoch := time.Unix(0, 0).UTC()
	img, err := Build(Spec{
		Platform: v1.Platform{OS: "linux", Architecture: "arm64"},
		Binary:   fakeBinary(t, "#!provider"),
		Labels:   map[string]string{"org.opencontainers.image.version": "v1.2.3"},
	})
	if err != nil {
		t.Fatal(err)
	}

	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	wantConfig := v1.Config{
		Entrypoint: []string{"/usr/local/bin/provider"},
		User:       "65532:65532",
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		Labels:     map[string]string{"org.opencontainers.image.version": "v1.2.3"},
	}
	if diff := cmp.Diff(wantConfig, cf.Config); diff != "" {
		t.Errorf("config: -want +got:\n%s", diff)
	}
	if got := cf.OS + "/" + cf.Architecture; got != "linux/arm64" {
		t.Errorf("platform: want linux/arm64, got %s", got)
	}
	if !cf.Created.Time.Equal(epoch) {
		t.Errorf("created: want the epoch (reproducible digests), got %s", cf.Created.Time)
	}

	headers, contents := files(t, img)
	wantHeaders := map[string]header{
		"etc/":                              {Mode: 0o755, Dir: true, ModTime: epoch},
		"etc/ssl/":                          {Mode: 0o755, Dir: true, ModTime: epoch},
		"etc/ssl/certs/":                    {Mode: 0o755, Dir: true, ModTime: epoch},
		"etc/ssl/certs/ca-certificates.crt": {Mode: 0o644, ModTime: epoch},
		// Writable by Crossplane's uid 2000, whatever the image's user.
		"tmp/":                   {Mode: 0o1777, Dir: true, ModTime: epoch},
		"usr/":                   {Mode: 0o755, Dir: true, ModTime: epoch},
		"usr/local/":             {Mode: 0o755, Dir: true, ModTime: epoch},
		"usr/local/bin/":         {Mode: 0o755, Dir: true, ModTime: epoch},
		"usr/local/bin/provider": {Mode: 0o755, ModTime: epoch},
	}
	if diff := cmp.Diff(wantHeaders, headers); diff != "" {
		t.Errorf("layer: -want +got:\n%s", diff)
	}
	if got := string(contents["usr/local/bin/provider"]); got != "#!provider" {
		t.Errorf("binary: got %q", got)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(contents["etc/ssl/certs/ca-certificates.crt"]) {
		t.Error("the CA bundle holds no certificate Go can parse")
	}
}

func TestBuildIsReproducible(t *testing.T) {
	bin := fakeBinary(t, "same")
	spec := Spec{Platform: v1.Platform{OS: "linux", Architecture: "amd64"}, Binary: bin}
	a, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Errorf("two builds of one binary differ: %s != %s", da, db)
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	ref, err := name.NewTag("example.org/provider-git:v0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	specs := []Spec{
		{Platform: v1.Platform{OS: "linux", Architecture: "amd64"}, Binary: fakeBinary(t, "amd64")},
		{Platform: v1.Platform{OS: "linux", Architecture: "arm64"}, Binary: fakeBinary(t, "arm64")},
	}
	written, err := Write(dir, ref, specs)
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2 {
		t.Fatalf("want 2 images written, got %d", len(written))
	}
	for _, w := range written {
		img, err := tarball.ImageFromPath(w.Path, &ref)
		if err != nil {
			t.Fatalf("%s: %v", w.Path, err)
		}
		// A docker-save tarball keeps the configuration verbatim but not
		// the manifest, so the configuration is what must match.
		got, _ := img.ConfigName()
		if got != w.Config {
			t.Errorf("%s: tarball holds configuration %s, built %s", w.Path, got, w.Config)
		}
	}

	p, err := layout.FromPath(filepath.Join(dir, "oci"))
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	tm, err := top.IndexManifest()
	if err != nil || len(tm.Manifests) != 1 {
		t.Fatalf("the layout should name one index: %v", err)
	}
	idx, err := top.ImageIndex(tm.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range im.Manifests {
		got = append(got, m.Platform.String())
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, got); diff != "" {
		t.Errorf("index platforms: -want +got:\n%s", diff)
	}
}

func TestBinariesFlag(t *testing.T) {
	cases := map[string]struct {
		reason  string
		arg     string
		want    binaries
		wantErr bool
	}{
		"PlatformAndPath": {
			reason: "platform=path names a binary for the platform.",
			arg:    "linux/arm64=bin/p",
			want:   binaries{{Platform: v1.Platform{OS: "linux", Architecture: "arm64"}, Binary: "bin/p"}},
		},
		"NoPath": {
			reason:  "A platform without a path is refused.",
			arg:     "linux/arm64",
			wantErr: true,
		},
		"NoArchitecture": {
			reason:  "An OS alone is not a platform.",
			arg:     "linux=bin/p",
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var b binaries
			err := b.Set(tc.arg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("\n%s\nSet(%q): error %v, want error %t", tc.reason, tc.arg, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, b); diff != "" {
				t.Errorf("\n%s\nSet(%q): -want +got:\n%s", tc.reason, tc.arg, diff)
			}
		})
	}
}
