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

package forge

import "context"

// Hook is the webhook the provider keeps on a repository when a
// configuration asks it to register its events (spec.events.register). Its
// URL ends in a path derived from the webhook secret, so the URL alone
// tells the provider's hook apart from every other on the repository.
type Hook struct {
	// ID is the forge's id of the hook, "" before it exists.
	ID string
	// URL is where the forge delivers: the events endpoint's external URL
	// and the configuration's status.events.path.
	URL string
	// Secret signs deliveries (or is sent as their token). Forges never
	// return it, so a Hook read back has it empty.
	Secret string
	// Active is false when the forge has turned delivery off.
	Active bool
}

// Hooks keeps webhooks on one repository. A Client whose forge lets a
// token manage the repository's hooks implements it; a caller asserts for
// it and documents the manual set-up where a Client does not.
type Hooks interface {
	// ListHooks returns the repository's webhooks: ID, URL and Active, for
	// every hook whatever its events.
	ListHooks(ctx context.Context) ([]Hook, error)
	// CreateHook adds h (URL, Secret) delivering push and pull request
	// events as JSON, active, and returns it with its ID.
	CreateHook(ctx context.Context, h Hook) (Hook, error)
	// UpdateHook points the hook h.ID at h.URL with h.Secret, the same
	// events, active, and returns it. A forge that cannot change a hook's
	// secret in place (Gitea) creates the new hook before it deletes the
	// old, so the hook returned may have a new ID.
	UpdateHook(ctx context.Context, h Hook) (Hook, error)
	// DeleteHook removes the hook id; ErrNotFound when it is gone already.
	DeleteHook(ctx context.Context, id string) error
}
