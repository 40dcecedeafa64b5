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

import (
	"context"
	"fmt"
)

// errTooLargeFmt names the path, its size and the bound.
const errTooLargeFmt = "file %q is %d bytes, more than the %d bytes this provider reads"

// TooLargeError is returned by ReadFileMax for a file above its bound. It
// names the file so that the caller can report it as the problem of the
// object that reads it: the content was not read.
type TooLargeError struct {
	Path string
	Size int64
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf(errTooLargeFmt, e.Path, e.Size, e.Max)
}

// ReadFileMax is ReadFile for content that will be parsed: a file of more
// than limit bytes is refused with a *TooLargeError before its content is
// allocated, so whoever can push a file cannot make the provider hold a
// blob of any size in memory. The Blob returned with that error has its
// SHA and mode but no Content. limit < 0 reads any size.
func (r *Repository) ReadFileMax(ctx context.Context, commit, p string, limit int64) (Blob, error) {
	return r.readFile(ctx, commit, p, limit)
}
