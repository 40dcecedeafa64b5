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

package manifest

import (
	"maps"
	"slices"
	"strconv"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errNestedSecret = "refusing to write a Secret held inside another object to Git: it can be written neither in plain text nor encrypted " +
		"(kubectl and Flux split a List into its items before they decrypt, so the items of an encrypted List never decrypt); " +
		"write each Secret as an object of its own"
	errFmtNestedAt = "%s is a Secret"
)

// ErrNestedSecret is returned for an object that carries a core v1 Secret
// inside it: an item of a List (a v1 List, a SecretList, any object with
// items, a List in a List), or a manifest with data embedded anywhere else
// (a provider-kubernetes Object's spec.forProvider.manifest).
// Unlike a bare Secret it is refused even for a caller that encrypts: a SOPS
// file encrypts its document as a whole, and whoever splits a List into its
// items first (kubectl apply, kustomize and so Flux's kustomize-controller)
// leaves the items without the sops metadata that would decrypt them.
var ErrNestedSecret = errors.New(errNestedSecret)

// nestedSecret returns where obj, a decoded object, carries a Secret, and
// whether it does. The items of a List (and of a List in it) are objects in
// their own right, what kubectl applies, so an item is a Secret by its
// apiVersion and kind alone, as a bare object is. Anywhere else a map is a
// Secret only when it also holds data or stringData: a reference to a
// Secret (an ownerReference, a secretRef naming its kind) and an empty
// template carry no secret value. Keys are walked in order, so one object
// is always refused with the same message.
func nestedSecret(obj map[string]any) (string, bool) {
	items, list := obj["items"].([]any)
	for i, it := range items {
		item, ok := it.(map[string]any)
		if !ok {
			continue
		}
		at := "items[" + strconv.Itoa(i) + "]"
		if isSecret(item) {
			return at, true
		}
		if p, ok := nestedSecret(item); ok {
			return at + "." + p, true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if k == "items" && list {
			continue
		}
		if p, ok := embeddedSecret(obj[k], k); ok {
			return p, true
		}
	}
	return "", false
}

// embeddedSecret returns where v, found at path at, holds a Secret manifest
// with values.
func embeddedSecret(v any, at string) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		if isSecret(v) && (nonEmpty(v["data"]) || nonEmpty(v["stringData"])) {
			return at, true
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if p, ok := embeddedSecret(v[k], at+"."+k); ok {
				return p, true
			}
		}
	case []any:
		for i, c := range v {
			if p, ok := embeddedSecret(c, at+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
	}
	return "", false
}

// isSecret reports whether m's apiVersion and kind are a core v1 Secret's.
func isSecret(m map[string]any) bool {
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	return apiVersion == apiVersionV1 && kind == kindSecret
}

// nonEmpty reports whether v is a map with a key, or any other value
// (a string where a map belongs is still written to Git).
func nonEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// refuseNestedSecret is ErrNestedSecret naming where obj carries one, or
// nil.
func refuseNestedSecret(obj map[string]any) error {
	if at, ok := nestedSecret(obj); ok {
		return errors.Wrapf(ErrNestedSecret, errFmtNestedAt, at)
	}
	return nil
}
