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

package yamledit

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParseDocuments parses files of 1,000 and of MaxDocuments
// documents: the cost per document (ns/doc) stays flat when Parse is
// linear in the number of documents; it grew tenfold with it when each
// document's line was counted from the file's start.
func BenchmarkParseDocuments(b *testing.B) {
	for _, n := range []int{1000, MaxDocuments} {
		in := []byte(object + strings.Repeat("---\n"+object, n-1))
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/doc")
		})
	}
}
