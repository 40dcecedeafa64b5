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

// Package admission is the provider's validating admission webhook for
// Mirrors with attribution Admission or Auto: it records who made each
// create, update and delete of an object, in memory and bounded, and
// always allows the request. It never refuses: its answer is allowed,
// whatever the request, its body or its caller, and it answers from memory
// without an API call, so a write never waits on the provider beyond the
// webhook's own round trip (and not at all when the webhook is down: its
// configuration's failurePolicy is Ignore).
//
// # What a request carries, and what is kept
//
// An admission.k8s.io/v1 AdmissionReview names the user (username, uid,
// groups), the operation (CREATE, UPDATE, DELETE, CONNECT), the object's
// group, version and resource, and the options of the request (Create,
// Update or PatchOptions, with the field manager), the object as it will be
// stored and, for an update or delete, the object as it is. Validating
// admission runs after the strategy prepared the object (an update's
// PrepareForUpdate: status and generation) and before storage assigns the
// new resourceVersion, so the object minus metadata.resourceVersion is what
// is persisted if the write succeeds. A Fact keeps the user, field manager,
// operation, the object's UID, for an update the resourceVersion the write
// was made against (oldObject.metadata.resourceVersion), and a keyed
// fingerprint of the object's rendering as a Mirror writes it
// (internal/manifest): never the object, and never a value of it that a
// reader of the provider's memory or metrics could recover (the key is the
// process's own, random).
package admission

import (
	"encoding/json"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/audit"
)

// The operations a Fact is made of.
const (
	OpCreate = "CREATE"
	OpUpdate = "UPDATE"
	OpDelete = "DELETE"
)

// Fact is one write the webhook admitted. It may not have persisted: a
// later admission step, a conflict on a stale resourceVersion or storage
// may still refuse it. The join tells: a write persisted when the object's
// version after it has its fingerprint (see internal/attribution).
type Fact struct {
	Operation string
	// User is who the write was made as (the impersonated user when the
	// request impersonated one).
	User audit.User
	// FieldManager is the request's fieldManager option; empty when the
	// client sent none.
	FieldManager string
	// Resource names the object's kind as the request did, in the version
	// the webhook was sent (its rule's).
	Resource audit.GroupResource
	Version  string
	// Namespace and Name name the object.
	Namespace, Name string
	// UID is the object's: set before validating admission, also on a
	// create.
	UID string
	// Against is the resourceVersion an update was made against (the
	// object as it was); empty for a create and a delete.
	Against string
	// Fingerprint is Store.Fingerprint of the object's rendering as it
	// will be stored; empty for a delete, or an object that does not
	// render.
	Fingerprint string
	// Arrived is when the webhook received it, by the Store's clock.
	Arrived time.Time
}

// review is the part of an admission.k8s.io/v1 AdmissionReview this
// package reads. It is defined here, not imported from k8s.io/api, so that
// the objects stay raw until they are rendered.
type review struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Request    *request `json:"request"`
}

type request struct {
	UID         string          `json:"uid"`
	Kind        groupVersion    `json:"kind"`
	Resource    groupVersion    `json:"resource"`
	SubResource string          `json:"subResource"`
	Namespace   string          `json:"namespace"`
	Name        string          `json:"name"`
	Operation   string          `json:"operation"`
	UserInfo    userInfo        `json:"userInfo"`
	Object      json.RawMessage `json:"object"`
	OldObject   json.RawMessage `json:"oldObject"`
	DryRun      *bool           `json:"dryRun"`
	Options     json.RawMessage `json:"options"`
}

type groupVersion struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Kind     string `json:"kind"`
	Resource string `json:"resource"`
}

type userInfo struct {
	Username string   `json:"username"`
	UID      string   `json:"uid"`
	Groups   []string `json:"groups"`
}

// objectMeta is what a fact reads of an object's metadata.
type objectMeta struct {
	Metadata struct {
		UID             string `json:"uid"`
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

// options is what a fact reads of a request's options.
type options struct {
	FieldManager string `json:"fieldManager"`
}

// fieldManagerOf is the fieldManager of a request's options.
func fieldManagerOf(raw json.RawMessage) string {
	var o options
	if len(raw) == 0 || json.Unmarshal(raw, &o) != nil {
		return ""
	}
	return o.FieldManager
}

// Bounds of who a fact names: above any the API server authenticates, so
// that one review cannot take the memory of thousands.
const (
	maxNameBytes = 1024
	maxGroups    = 256
)

// bounded reports whether u is within the bounds a fact keeps.
func bounded(u userInfo) bool {
	if len(u.Username) > maxNameBytes || len(u.UID) > maxNameBytes || len(u.Groups) > maxGroups {
		return false
	}
	for _, g := range u.Groups {
		if len(g) > maxNameBytes {
			return false
		}
	}
	return true
}

// fact makes r's fact, its object's fingerprint by fingerprint; ok is false for
// a request that is not a fact (a subresource, a dry run, a connect, no
// user, no UID, a user past the bounds).
func (r *request) fact(fingerprint func(gv groupVersion, obj []byte) string) (Fact, bool) {
	if r.SubResource != "" || (r.DryRun != nil && *r.DryRun) || r.UserInfo.Username == "" || !bounded(r.UserInfo) {
		return Fact{}, false
	}
	f := Fact{
		Operation: r.Operation, User: audit.User{Username: r.UserInfo.Username, UID: r.UserInfo.UID, Groups: r.UserInfo.Groups},
		FieldManager: fieldManagerOf(r.Options), Resource: audit.GroupResource{Group: r.Resource.Group, Resource: r.Resource.Resource},
		Version: r.Resource.Version, Namespace: r.Namespace, Name: r.Name,
	}
	var obj, old objectMeta
	switch r.Operation {
	case OpCreate, OpUpdate:
		if json.Unmarshal(r.Object, &obj) != nil {
			return Fact{}, false
		}
		f.UID = obj.Metadata.UID
		if f.Name == "" {
			// generateName: the name is set by now.
			f.Name = obj.Metadata.Name
		}
		if r.Operation == OpUpdate {
			if json.Unmarshal(r.OldObject, &old) != nil {
				return Fact{}, false
			}
			f.Against = old.Metadata.ResourceVersion
		}
		f.Fingerprint = fingerprint(r.Kind, r.Object)
	case OpDelete:
		if json.Unmarshal(r.OldObject, &old) != nil {
			return Fact{}, false
		}
		f.UID = old.Metadata.UID
	default:
		return Fact{}, false
	}
	return f, f.UID != ""
}
