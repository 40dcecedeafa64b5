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

// Package apis contains the Kubernetes API types of provider-git.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// AddToScheme adds every API group of provider-git to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	return v1alpha1.SchemeBuilder.AddToScheme(s)
}
