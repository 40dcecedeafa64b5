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
	"regexp"
	"strings"
)

// matches reports whether image s is one an images entry named name
// applies to, as kustomize decides it: the name, then optionally a tag,
// then optionally a digest. kustomize does not quote the name, so neither
// does this: a "." in it matches any character there too.
func matches(s, name string) bool {
	re, err := regexp.Compile("^" + name + "(:[a-zA-Z0-9_.{}-]*)?(@[a-zA-Z0-9]+([.+_-][a-zA-Z0-9]+)*:[a-zA-Z0-9_.{}-]*)?$")
	return err == nil && re.MatchString(s)
}

// Split returns an image's name, tag and digest. A registry's port
// (localhost:5000/app) is part of the name.
func Split(image string) (name, tag, digest string) {
	search := image
	slash := strings.Index(image, "/")
	if slash > 0 {
		search = image[slash:]
	} else {
		slash = 0
	}
	at := strings.Index(search, "@")
	colon := strings.Index(search, ":")
	switch {
	case colon < 0 && at < 0:
		return image, "", ""
	case at >= 0 && (at < colon || colon < 0):
		at += slash
		return image[:at], "", image[at+1:]
	case at >= 0 && colon >= 0:
		at += slash
		colon += slash
		return image[:colon], image[colon+1 : at], image[at+1:]
	}
	colon += slash
	return image[:colon], image[colon+1:], ""
}

// Join is Split's inverse.
func Join(name, tag, digest string) string {
	if tag != "" {
		name += ":" + tag
	}
	if digest != "" {
		name += "@" + digest
	}
	return name
}

// Apply is image s after entry im.
func Apply(s string, im Image) string {
	name, tag, digest := Split(s)
	if im.NewName != "" {
		name = im.NewName
	}
	switch {
	case im.NewTag != "" && im.Digest != "":
		tag, digest = im.NewTag, im.Digest
	case im.NewTag != "":
		tag, digest = im.NewTag, ""
	case im.Digest != "":
		tag, digest = "", im.Digest
	}
	return Join(name, tag, digest)
}
