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

package crossplanetest_test

import (
	"context"
	"io"
	"log"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// pushTimeout bounds one push to the in-process registry.
const pushTimeout = time.Minute

// startRegistry serves an in-memory OCI registry on loopback until the test
// ends and returns its host:port. Crossplane (go-containerregistry) talks
// plain HTTP to a registry on 127.0.0.1, as it does to localhost.
func startRegistry(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// pushPackages pushes one package per platform as a multi-platform index,
// what `crossplane xpkg push -f a.xpkg,b.xpkg ref` does, and returns the
// reference.
func pushPackages(t testing.TB, ref string, xpkgs map[string]string) string {
	t.Helper()
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	platforms := make([]string, 0, len(xpkgs))
	for p := range xpkgs {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		img, err := tarball.ImageFromPath(xpkgs[p], nil)
		if err != nil {
			t.Fatalf("%s: %v", xpkgs[p], err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if got := cf.OS + "/" + cf.Architecture; got != p {
			t.Fatalf("%s is a package for %s, not %s", xpkgs[p], got, p)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: cf.OS, Architecture: cf.Architecture}},
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), pushTimeout)
	defer cancel()
	if err := remote.WriteIndex(tag, idx, remote.WithContext(ctx)); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	return ref
}

// pushPackage pushes one package as ref.
func pushPackage(t testing.TB, ref, xpkg string) string {
	t.Helper()
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(xpkg, nil)
	if err != nil {
		t.Fatalf("%s: %v", xpkg, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), pushTimeout)
	defer cancel()
	if err := remote.Write(tag, img, remote.WithContext(ctx)); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	return ref
}
