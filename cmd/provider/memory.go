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
	"github.com/alecthomas/kingpin/v2"
	"github.com/alecthomas/units"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/internal/git"
)

// cloneMemory is --clone-memory: a size such as 64MiB, above 0. Without a
// budget every read would decode its trees again.
type cloneMemory int64

func (m *cloneMemory) Set(v string) error {
	b, err := units.ParseBase2Bytes(v)
	if err != nil {
		return errors.Errorf("--clone-memory %q is not a size such as 64MiB or 1GiB", v)
	}
	if b <= 0 {
		return errors.Errorf("--clone-memory must be above 0 (a size such as 64MiB), not %q", v)
	}
	*m = cloneMemory(b)
	return nil
}

func (m *cloneMemory) String() string { return units.Base2Bytes(*m).String() }

// cloneMemoryFlag declares --clone-memory on app; its default is the
// engine's (git.DefaultCloneMemory, which says why).
func cloneMemoryFlag(app *kingpin.Application) *cloneMemory {
	m := cloneMemory(git.DefaultCloneMemory)
	app.Flag("clone-memory", "Budget of the object and tree caches and the pack indexes of all local clones together (e.g. 64MiB, 1GiB); the least recently used cache entries go first, and the caches always keep a quarter. Above 0.").
		Default(m.String()).SetValue(&m)
	return &m
}
