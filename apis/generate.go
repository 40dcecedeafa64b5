//go:build generate

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

// Generation runs through the `tool` directives in go.mod, so the versions of
// controller-gen and angryjet are pinned where every other dependency is.

// Remove generated files first so a deleted type leaves no stale CRD behind.
//go:generate rm -rf ../package/crds
//go:generate go tool controller-gen object:headerFile=header.go.txt paths=./... crd:crdVersions=v1 output:artifacts:config=../package/crds
//go:generate go tool angryjet generate-methodsets --header-file=header.go.txt ./...

package apis
