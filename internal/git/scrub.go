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

package git

import "regexp"

var (
	// urlUserinfo matches the user[:password]@ of a URL.
	urlUserinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@"'<>]+@`)
	// urlQuery matches the query of a URL, where tokens are also passed.
	urlQuery = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://[^\s?#"'<>]*)\?[^\s#"'<>]*`)
)

// redacted stands for what Scrub removed.
const redacted = "REDACTED"

// Scrub removes what could be a credential from the URLs in msg: the
// user and password, and the query (where some hosts take a token). Nothing
// else of a message changes, so it still says what went wrong and where.
func Scrub(msg string) string {
	msg = urlUserinfo.ReplaceAllString(msg, "${1}"+redacted+"@")
	return urlQuery.ReplaceAllString(msg, "${1}?"+redacted)
}
