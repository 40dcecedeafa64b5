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

package v1alpha1

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// Package type metadata.
const (
	Group   = "test.git.m.crossplane.io"
	Version = "v1alpha1"
)

var (
	// SchemeGroupVersion is group version used to register these objects.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// SchemeBuilder is used to add go types to the GroupVersionKind scheme.
	// It is the builder of apis/v1alpha1, so this kind is registered as the
	// real ones are; its deprecation is about what an API package makes
	// importers link, and every importer of this package links
	// controller-runtime anyway.
	SchemeBuilder = &scheme.Builder{GroupVersion: SchemeGroupVersion} //nolint:staticcheck // See above.

	// AddToScheme adds the types of this group to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Thing type metadata.
var (
	ThingKind             = reflect.TypeFor[Thing]().Name()
	ThingGroupKind        = schema.GroupKind{Group: Group, Kind: ThingKind}.String()
	ThingKindAPIVersion   = ThingKind + "." + SchemeGroupVersion.String()
	ThingGroupVersionKind = SchemeGroupVersion.WithKind(ThingKind)
)

func init() {
	SchemeBuilder.Register(&Thing{}, &ThingList{})
}
