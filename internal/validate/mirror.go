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

package validate

import (
	"regexp"
	"unicode/utf8"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

// Limits of a Mirror's fields, the same as the CRD's.
const (
	MaxFolderLength     = 512
	MaxAPIVersionLength = 316
	MaxKindLength       = 63
	MaxGroupLength      = 253
	MaxResourceLength   = 63
	MaxNamespaceLength  = 63
)

const (
	errFolderLong     = "path must be at most 512 characters"
	errAPIVersion     = "apiVersion must be version or group/version, e.g. v1 or apps/v1"
	errKind           = "kind must be a Kubernetes kind such as ConfigMap"
	errGroup          = "group must be a DNS subdomain such as apps, or empty for the core group"
	errResource       = "resource must be a lower-case plural resource name such as configmaps"
	errNamespace      = "namespace must be a DNS label such as team-a"
	errResourceChoice = "set apiVersion and kind, or group and resource (group empty for the core group)"
)

// The CRD's patterns for a Mirror's resources and namespaces.
var (
	apiVersionRE = regexp.MustCompile(`^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?v[0-9]+((alpha|beta)[0-9]+)?$`)
	kindRE       = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	groupRE      = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	labelRE      = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
)

// Folder returns an error unless p is a folder a Mirror may own: "." for
// the repository root, or a path Path accepts of at most MaxFolderLength
// characters.
func Folder(p string) error {
	if p == "." {
		return nil
	}
	if utf8.RuneCountInString(p) > MaxFolderLength {
		return errors.New(errFolderLong)
	}
	return Path(p)
}

// MirrorResource returns an error unless exactly one of the two ways to
// name a kind is used, and its fields have the shapes the CRD admits:
// apiVersion and kind, or group (nil: unset, "" the core group) and
// resource.
func MirrorResource(apiVersion, kind string, group *string, resource string) error {
	if resource != "" {
		if apiVersion != "" || kind != "" {
			return errors.New(errResourceChoice)
		}
		if group != nil && *group != "" && (len(*group) > MaxGroupLength || !groupRE.MatchString(*group)) {
			return errors.New(errGroup)
		}
		if len(resource) > MaxResourceLength || !labelRE.MatchString(resource) {
			return errors.New(errResource)
		}
		return nil
	}
	if apiVersion == "" || kind == "" || group != nil {
		return errors.New(errResourceChoice)
	}
	if len(apiVersion) > MaxAPIVersionLength || !apiVersionRE.MatchString(apiVersion) {
		return errors.New(errAPIVersion)
	}
	if len(kind) > MaxKindLength || !kindRE.MatchString(kind) {
		return errors.New(errKind)
	}
	return nil
}

// Namespace returns an error unless ns is a namespace name (a DNS label).
func Namespace(ns string) error {
	if ns == "" || len(ns) > MaxNamespaceLength || !labelRE.MatchString(ns) {
		return errors.New(errNamespace)
	}
	return nil
}
