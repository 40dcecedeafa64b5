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
	"strings"
	"testing"
)

func TestMirrorFields(t *testing.T) {
	core, apps, bad := "", "apps", "Apps"
	cases := map[string]struct {
		reason string
		err    error
		ok     bool
	}{
		"FolderRoot":        {reason: "'.' is the repository root.", err: Folder("."), ok: true},
		"FolderNested":      {reason: "A folder is a clean relative path.", err: Folder("clusters/prod"), ok: true},
		"FolderDotInside":   {reason: "'.' is only the root, never a component.", err: Folder("a/./b")},
		"FolderGit":         {reason: "No folder inside .git.", err: Folder("x/.git")},
		"FolderLong":        {reason: "A folder leaves room below it for the objects' paths.", err: Folder(strings.Repeat("a", MaxFolderLength+1))},
		"KindByAPIVersion":  {reason: "apiVersion and kind.", err: MirrorResource("apps/v1", "Deployment", nil, ""), ok: true},
		"CoreAPIVersion":    {reason: "The core group's apiVersion is its version.", err: MirrorResource("v1", "ConfigMap", nil, ""), ok: true},
		"ByResource":        {reason: "Group and resource.", err: MirrorResource("", "", &apps, "deployments"), ok: true},
		"CoreResource":      {reason: "The empty group is the core group.", err: MirrorResource("", "", &core, "configmaps"), ok: true},
		"ResourceNoGroup":   {reason: "A resource without a group is a core resource.", err: MirrorResource("", "", nil, "configmaps"), ok: true},
		"Both":              {reason: "Both ways at once are ambiguous.", err: MirrorResource("v1", "ConfigMap", nil, "configmaps")},
		"KindWithGroup":     {reason: "A group belongs with a resource.", err: MirrorResource("v1", "ConfigMap", &apps, "")},
		"Neither":           {reason: "A kind must be named.", err: MirrorResource("", "", nil, "")},
		"BadAPIVersion":     {reason: "An apiVersion ends in a version.", err: MirrorResource("apps", "Deployment", nil, "")},
		"LowerKind":         {reason: "Kinds are CamelCase.", err: MirrorResource("v1", "configMap", nil, "")},
		"BadGroup":          {reason: "A group is a DNS subdomain.", err: MirrorResource("", "", &bad, "x")},
		"UpperResource":     {reason: "Resources are lower-case plurals.", err: MirrorResource("", "", nil, "ConfigMaps")},
		"Namespace":         {reason: "A namespace is a DNS label.", err: Namespace("team-a"), ok: true},
		"NamespaceEmpty":    {reason: "The empty namespace would mean every namespace.", err: Namespace("")},
		"NamespaceUpper":    {reason: "No upper case in a DNS label.", err: Namespace("Team")},
		"NamespaceLong":     {reason: "A DNS label is at most 63 characters.", err: Namespace(strings.Repeat("a", 64))},
		"NamespaceTrailing": {reason: "A DNS label ends in a letter or digit.", err: Namespace("team-")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if (tc.err == nil) != tc.ok {
				t.Errorf("%s\nerror = %v, want ok = %t", tc.reason, tc.err, tc.ok)
			}
		})
	}
}
