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

// Remove stale CRDs so a renamed kind leaves nothing behind.
//go:generate rm -rf ./crds

// Deep-copy methods and CRDs.
//go:generate go tool controller-gen object:headerFile=../../../apis/header.go.txt paths=./... crd:crdVersions=v1 output:artifacts:config=./crds

// Managed resource method sets, as a real provider kind has them.
//go:generate go tool angryjet generate-methodsets --header-file=../../../apis/header.go.txt ./...

package testkind
