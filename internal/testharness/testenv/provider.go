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

package testenv

import (
	"context"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errBuildProvider = "go build ./cmd/provider"
	errCopyProvider  = "cannot copy the provider binary " + ProviderBinaryEnv
)

// ProviderBinaryEnv names a provider binary already built from this tree,
// as the image's (make test sets it to the one test-xpkg built moments
// before): BuildProvider copies it instead of linking its own, a link of
// several CPU-seconds in each test process that runs the binary.
const ProviderBinaryEnv = "PROVIDER_GIT_BINARY"

// BuildProvider builds the provider binary at out, as `make image` builds
// the runtime image's (static, trimmed paths, stripped), so that a test run
// after `make image`, as `make test` runs them, links packages already
// compiled instead of compiling every dependency once more. With
// ProviderBinaryEnv set, it copies that binary instead.
func BuildProvider(out string) error {
	if built := os.Getenv(ProviderBinaryEnv); built != "" {
		return errors.Wrapf(copyExecutable(built, out), "%s=%s", errCopyProvider, built)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out,
		"github.com/crossplane-contrib/provider-git/cmd/provider")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return errors.Wrapf(err, "%s: %s", errBuildProvider, b)
	}
	return nil
}

// copyExecutable copies the file at from to a new executable at to.
func copyExecutable(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read only
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		_ = dst.Close()
		return err
	}
	return dst.Close()
}
