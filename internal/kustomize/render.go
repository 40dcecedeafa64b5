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

package kustomize

import (
	"path"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"go.yaml.in/yaml/v3"

	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

const (
	errCycleFmt = "%s includes itself through its resources"
	errTwiceFmt = "%s renders %s twice (from %s and %s)"
)

// Object is one object a kustomization renders.
type Object struct {
	ID yamledit.ID
	// Value is the rendered object: a copy of its document, transformed.
	Value *yaml.Node
	// File and Doc are its document.
	File string
	Doc  int
	// Via are the kustomization files it came through, from the one
	// rendered down to the one whose resources list File.
	Via []string
}

// Render renders the kustomization file at file.
func Render(fs Files, file string) ([]Object, error) {
	return render(fs, file, map[string]bool{}, true)
}

// RenderUntransformed renders the kustomization at file without its own
// namespace, images and replicas (those of what it includes apply): what
// its own transformers are given.
func RenderUntransformed(fs Files, file string) ([]Object, error) {
	return render(fs, file, map[string]bool{}, false)
}

func render(fs Files, file string, seen map[string]bool, own bool) ([]Object, error) {
	if seen[file] {
		return nil, errors.Errorf(errCycleFmt, file)
	}
	seen[file] = true
	defer delete(seen, file)
	k, err := Load(fs, file)
	if err != nil {
		return nil, err
	}
	var out []Object
	for _, r := range k.Resources {
		objs, err := resource(fs, k, r, seen)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	if own {
		if err := transform(k, out); err != nil {
			return nil, err
		}
	}
	byID := map[yamledit.ID]int{}
	for i, o := range out {
		if j, ok := byID[o.ID]; ok {
			return nil, errors.Errorf(errTwiceFmt, file, o.ID, out[j].File, o.File)
		}
		byID[o.ID] = i
	}
	return out, nil
}

// resource renders resource entry r of k: a kustomization's directory,
// or a file's documents.
func resource(fs Files, k *Kustomization, r string, seen map[string]bool) ([]Object, error) {
	file := k.File
	p := join(k.Dir, r)
	if p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(r) {
		return nil, &UnsupportedError{Feature: "the resource " + r + " outside the Mirror's folder", File: file}
	}
	if kf, ok := fs.find(p); ok {
		sub, err := render(fs, kf, seen, true)
		if err != nil {
			return nil, err
		}
		for i := range sub {
			sub[i].Via = append([]string{file}, sub[i].Via...)
		}
		return sub, nil
	}
	f, ok := fs[p]
	if !ok {
		feature := "the resource " + r + ", which is not a YAML file of the folder"
		if fs.isDir(p) {
			feature = "the directory " + r + ", which has no kustomization"
		}
		return nil, &UnsupportedError{Feature: feature, File: file}
	}
	var out []Object
	for i, d := range f.Docs {
		if d.Root == nil {
			continue
		}
		if !d.Object || d.Err != nil {
			return nil, &UnsupportedError{Feature: "a document that is not an object, or uses YAML anchors", File: p}
		}
		out = append(out, Object{ID: d.ID, Value: Copy(d.Root), File: p, Doc: i, Via: []string{file}})
	}
	return out, nil
}

// transform applies k's own namespace, replicas and images to objs, as
// kustomize's builtin transformers do.
func transform(k *Kustomization, objs []Object) error {
	for i := range objs {
		o := &objs[i]
		if k.Namespace != "" {
			if err := namespaceSideEffects(k, o); err != nil {
				return err
			}
			switch {
			case o.ID.Kind == "Namespace" && o.ID.Group == "":
				// kustomize names a Namespace object after the namespace.
				setScalar(ensureMap(o.Value, "metadata"), "name", k.Namespace, "!!str")
				o.ID.Name = k.Namespace
			case !clusterScoped[o.ID.Kind]:
				setScalar(ensureMap(o.Value, "metadata"), "namespace", k.Namespace, "!!str")
				o.ID.Namespace = k.Namespace
			}
		}
	}
	for _, r := range k.Replicas {
		found := false
		for i := range objs {
			o := &objs[i]
			if r.Name == o.ID.Name && slices.Contains(scaled, o.ID.Kind) {
				setScalar(ensureMap(o.Value, "spec"), "replicas", itoa(r.Count), "!!int")
				found = true
			}
		}
		if !found {
			// kustomize refuses it too.
			return &UnsupportedError{Feature: "a replicas entry for " + r.Name + ", which names no Deployment, ReplicaSet, StatefulSet or ReplicationController", File: k.File}
		}
	}
	for _, im := range k.Images {
		for i := range objs {
			if objs[i].ID.Kind == "CustomResourceDefinition" {
				continue
			}
			eachImage(objs[i].Value, func(n *yaml.Node) {
				if matches(n.Value, im.Name) {
					n.Value = Apply(n.Value, im)
					n.Tag, n.Style = "!!str", 0
				}
			})
		}
	}
	return nil
}

// scaled are the kinds whose spec.replicas a replicas entry sets.
var scaled = []string{"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"}

// namespaceSideEffects refuses what kustomize's namespace transformer
// changes beyond metadata.namespace: the subjects named default of
// bindings, and the service references of API services and of CRDs'
// conversion webhooks.
func namespaceSideEffects(k *Kustomization, o *Object) error {
	switch o.ID.Kind {
	case "RoleBinding", "ClusterRoleBinding":
		subjects := child(o.Value, "subjects")
		if subjects == nil {
			return nil
		}
		for _, s := range subjects.Content {
			if name := child(s, "name"); name != nil && name.Value == "default" {
				return &UnsupportedError{Feature: "namespace over the subjects named default of " + o.ID.Kind + " " + o.ID.Name, File: k.File}
			}
		}
	case "APIService", "CustomResourceDefinition":
		return &UnsupportedError{Feature: "namespace over the service reference of " + o.ID.Kind + " " + o.ID.Name, File: k.File}
	}
	return nil
}

// eachImage calls fn with every image kustomize's images transformer
// sets, in document order: the image of each item of a containers or
// initContainers list anywhere in n, then the image reference of each
// image volume of a pod spec (spec, spec.template.spec,
// spec.jobTemplate.spec.template.spec).
func eachImage(n *yaml.Node, fn func(*yaml.Node)) {
	containerImages(n, fn)
	spec := child(n, "spec")
	for _, pod := range []*yaml.Node{spec, child(child(spec, "template"), "spec"), child(child(child(child(spec, "jobTemplate"), "spec"), "template"), "spec")} {
		if vs := child(pod, "volumes"); vs != nil && vs.Kind == yaml.SequenceNode {
			for _, v := range vs.Content {
				if ref := child(child(v, "image"), "reference"); ref != nil && ref.Kind == yaml.ScalarNode {
					fn(ref)
				}
			}
		}
	}
}

func containerImages(n *yaml.Node, fn func(*yaml.Node)) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if (k == "containers" || k == "initContainers") && v.Kind == yaml.SequenceNode {
				for _, c := range v.Content {
					if im := child(c, "image"); im != nil && im.Kind == yaml.ScalarNode {
						fn(im)
					}
				}
			}
			containerImages(v, fn)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			containerImages(c, fn)
		}
	}
}

// clusterScoped are the built-in kinds kustomize gives no namespace.
var clusterScoped = map[string]bool{}

func init() {
	for _, k := range []string{
		"APIService", "CertificateSigningRequest", "ClusterRole", "ClusterRoleBinding", "ClusterTrustBundle",
		"ComponentStatus", "CSIDriver", "CSINode", "CustomResourceDefinition", "DeviceClass", "FlowSchema",
		"IngressClass", "IPAddress", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding",
		"MutatingWebhookConfiguration", "Namespace", "Node", "PersistentVolume", "PodSecurityPolicy",
		"PriorityClass", "PriorityLevelConfiguration", "ResourceSlice", "RuntimeClass", "SelfSubjectAccessReview",
		"SelfSubjectReview", "SelfSubjectRulesReview", "ServiceCIDR", "StorageClass", "StorageVersion",
		"SubjectAccessReview", "TokenReview", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
		"ValidatingWebhookConfiguration", "VolumeAttachment", "VolumeAttributesClass",
	} {
		clusterScoped[k] = true
	}
}
