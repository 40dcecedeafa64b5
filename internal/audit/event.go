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

// Package audit receives the kube-apiserver's audit events (its webhook
// backend) and keeps, in memory and bounded by bytes, who wrote which
// object: the facts a Mirror joins to the changes its watches see, to name
// the author of each commit. It knows nothing of Mirrors or Git.
//
// # What an audit event carries
//
// The API server posts an audit.k8s.io/v1 EventList, one Event per stage of
// each request the audit policy selects. Only ResponseComplete events of
// writes that succeeded are facts: verb create, update, patch, delete or
// deletecollection, responseStatus.code 2xx, no subresource (a status write changes nothing a
// Mirror renders), not a dry run. At the Metadata level, which suffices,
// an event carries the user (username, uid, groups), the impersonated user
// when the request impersonated one, the user agent, the verb, the
// objectRef (resource, apiGroup, namespace, name, and the uid and
// resourceVersion of the request's own object when it sent one) and the
// stage timestamps. It does not carry the resourceVersion the write
// produced: that is only in responseObject, at the RequestResponse level,
// which would send every object's content to the provider. So a fact names
// its object by group, resource, namespace and name, and is ordered by when
// it arrived (see Store); the caller joins it to a change by that key and
// time (docs/guides/mirror.md#attribution).
//
// # Cost of what nobody watches
//
// The API server sends every event its policy selects. A Store only keeps
// facts of group/resources someone registered (Store.Want). A batch that
// does not even mention a wanted resource's name is not parsed at all; in
// one that does, an event that does not is scanned and skipped, not
// decoded; the others are decoded and checked against the wanted set
// before the Store allocates or locks anything (BenchmarkUnwatched,
// BenchmarkMixed).
package audit

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"
)

// The stage and verbs a fact is made of.
const (
	stageResponseComplete = "ResponseComplete"
	verbCreate            = "create"
	verbUpdate            = "update"
	verbPatch             = "patch"
	verbDelete            = "delete"
	// verbDeleteCollection deletes every object of a resource in a
	// namespace (or in all, or of a cluster-scoped resource) that its
	// selectors match; its event names no object.
	verbDeleteCollection = "deletecollection"
)

// event is the part of an audit.k8s.io/v1 Event (an item of the EventList
// the API server posts) this package reads. It is defined here, not
// imported from k8s.io/apiserver, whose audit package would link the API
// server's machinery into the provider. The users stay raw until the event
// is known to be a write of a wanted kind.
type event struct {
	AuditID          string          `json:"auditID"`
	Stage            string          `json:"stage"`
	RequestURI       string          `json:"requestURI"`
	Verb             string          `json:"verb"`
	User             json.RawMessage `json:"user"`
	ImpersonatedUser json.RawMessage `json:"impersonatedUser"`
	UserAgent        string          `json:"userAgent"`
	ObjectRef        *objectRef      `json:"objectRef"`
	ResponseStatus   *responseStatus `json:"responseStatus"`
	StageTimestamp   time.Time       `json:"stageTimestamp"`
}

type objectRef struct {
	Resource        string `json:"resource"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	UID             string `json:"uid"`
	APIGroup        string `json:"apiGroup"`
	ResourceVersion string `json:"resourceVersion"`
	Subresource     string `json:"subresource"`
}

type responseStatus struct {
	Code int32 `json:"code"`
}

// userInfo is an authentication.k8s.io/v1 UserInfo.
type userInfo struct {
	Username string   `json:"username"`
	UID      string   `json:"uid"`
	Groups   []string `json:"groups"`
}

// GroupResource names a kind of object as the API server's audit events
// do: the API group ("" for core) and the plural resource.
type GroupResource struct {
	Group, Resource string
}

// Key names one object.
type Key struct {
	GroupResource
	// Namespace is empty for a cluster-scoped object.
	Namespace, Name string
}

// User is who made a request, as the API server authenticated it.
type User struct {
	Username string
	UID      string
	Groups   []string
}

// Fact is one successful write of one object.
type Fact struct {
	// User is who the write was made as: the impersonated user when the
	// request impersonated one, else the authenticated user. It is who
	// RBAC authorized, and whom a Mirror names as the author.
	User User
	// Impersonator is the authenticated user who impersonated User; empty
	// when nobody did.
	Impersonator string
	UserAgent    string
	// FieldManager is the fieldManager query parameter of the request's
	// URI; empty when it sent none (a create or update may send it in
	// its body's options, which the Metadata level does not carry).
	FieldManager string
	Verb         string
	// AuditID is the request's audit ID.
	AuditID string
	// ResourceVersion is the objectRef's: the version the request sent
	// (an update's precondition), empty for most creates and patches.
	ResourceVersion string
	// Stage is the event's stageTimestamp, by the API server's clock.
	Stage time.Time
	// Arrived is when the Store received it, by the Store's clock: the
	// time a caller compares with its own (the watch event's).
	Arrived time.Time
}

// write reports whether e is a fact: a successful, real write of one
// object's main resource, complete, or a deletecollection of a resource
// (whose fact is kept under the collection's Key, without a name: see
// Store.Collection).
func (e *event) write() bool {
	if e.Stage != stageResponseComplete || e.ObjectRef == nil || e.ObjectRef.Subresource != "" {
		return false
	}
	switch e.Verb {
	case verbCreate, verbUpdate, verbPatch, verbDelete:
		if e.ObjectRef.Name == "" {
			return false
		}
	case verbDeleteCollection:
		if e.ObjectRef.Name != "" {
			return false
		}
	default:
		return false
	}
	if e.ResponseStatus == nil || e.ResponseStatus.Code < 200 || e.ResponseStatus.Code > 299 {
		return false
	}
	// A dry run is audited like a write and writes nothing.
	return !strings.Contains(e.RequestURI, "dryRun=")
}

// fact makes e's fact, or reports that its users do not decode.
func (e *event) fact(arrived time.Time) (Key, Fact, bool) {
	var u, imp userInfo
	if err := json.Unmarshal(e.User, &u); err != nil {
		return Key{}, Fact{}, false
	}
	f := Fact{
		User: User(u), UserAgent: e.UserAgent, Verb: e.Verb, AuditID: e.AuditID,
		ResourceVersion: e.ObjectRef.ResourceVersion, Stage: e.StageTimestamp, Arrived: arrived,
		FieldManager: fieldManagerOf(e.RequestURI),
	}
	if len(e.ImpersonatedUser) > 0 && string(e.ImpersonatedUser) != "null" {
		if err := json.Unmarshal(e.ImpersonatedUser, &imp); err != nil {
			return Key{}, Fact{}, false
		}
		if imp.Username != "" {
			f.Impersonator = u.Username
			f.User = User(imp)
		}
	}
	if f.User.Username == "" {
		return Key{}, Fact{}, false
	}
	r := e.ObjectRef
	return Key{GroupResource: GroupResource{Group: r.APIGroup, Resource: r.Resource}, Namespace: r.Namespace, Name: r.Name}, f, true
}

// fieldManagerOf is the fieldManager query parameter of the request URI
// uri, or empty.
func fieldManagerOf(uri string) string {
	_, q, ok := strings.Cut(uri, "?")
	if !ok {
		return ""
	}
	v, err := url.ParseQuery(q)
	if err != nil {
		return ""
	}
	return v.Get("fieldManager")
}
