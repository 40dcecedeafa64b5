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

package share

import (
	"crypto/sha256"
	"encoding/hex"
)

// DefaultGroup is the group of the replicas that watch every object.
const DefaultGroup = "provider-git"

// GroupFor returns the group of the replicas that watch the objects
// selector (its canonical form, labels.Selector's String) selects. Replicas
// share repositories only with replicas that see the same resources: a
// shard replica in the common group would be handed repositories whose
// configurations and resources it cannot see, and they would stop.
func GroupFor(selector string) string {
	if selector == "" {
		return DefaultGroup
	}
	sum := sha256.Sum256([]byte(selector))
	return DefaultGroup + "-" + hex.EncodeToString(sum[:5])
}
