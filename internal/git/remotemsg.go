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
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
)

// maxRemoteMessage bounds what a server may add to a refusal: a hook's
// explanation is a line or two; a condition message must stay readable.
const maxRemoteMessage = 1024

// remoteMessages keeps what the server says on the side band while it
// receives a push: a pre-receive hook's or a forge's explanation of why it
// refuses it. The report itself says only "pre-receive hook declined", which
// tells the resource's owner nothing they can act on.
type remoteMessages struct {
	mu  sync.Mutex
	buf strings.Builder
}

// askRemoteMessages asks the server for its messages on the side band (and
// no progress, where it can be silenced), and returns where they will be
// kept; nil when the server cannot send them.
func askRemoteMessages(req *packp.ReferenceUpdateRequest, adv *capability.List) *remoteMessages {
	var band capability.Capability
	switch {
	case adv.Supports(capability.Sideband64k):
		band = capability.Sideband64k
	case adv.Supports(capability.Sideband):
		band = capability.Sideband
	default:
		return nil
	}
	if err := req.Capabilities.Set(band); err != nil {
		return nil
	}
	if adv.Supports(capability.Quiet) {
		_ = req.Capabilities.Set(capability.Quiet)
	}
	m := &remoteMessages{}
	req.Progress = m
	return m
}

// Write keeps p, up to maxRemoteMessage bytes in all.
func (m *remoteMessages) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if room := maxRemoteMessage - m.buf.Len(); room > 0 {
		m.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// explain adds what the server said to a refusal; a lost race, or a server
// that said nothing, is returned as it is.
func (m *remoteMessages) explain(err error) error {
	if m == nil || KindOf(err) != KindRejected {
		return err
	}
	m.mu.Lock()
	said := m.text()
	m.mu.Unlock()
	if said == "" {
		return err
	}
	return &Error{Kind: KindRejected, Err: fmt.Errorf("the server said %q: %w", said, err)}
}

// text is what the server said, one line per message, without control
// characters, progress lines overwritten by a carriage return, or lines
// that are only a label (Gitea frames its refusal with bare "error:").
func (m *remoteMessages) text() string {
	var lines []string
	for _, l := range strings.Split(m.buf.String(), "\n") {
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:]
		}
		l = strings.TrimSpace(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, l))
		if l != "" && !bareLabel(l) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// bareLabel is a line that is one word and a colon: "error:", "remote:".
func bareLabel(l string) bool {
	return strings.HasSuffix(l, ":") && !strings.ContainsAny(l, " \t")
}
