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

package azure

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errMe          = "cannot read which identity the Azure DevOps token is"
	errIdentityFmt = "cannot look up the Azure DevOps identity %q"
	errNoneFmt     = "no Azure DevOps identity is named %q"
	errManyFmt     = "%d Azure DevOps identities are named %q: name one by its unique name or id"
)

// guid is an identity id as Azure spells it.
var guid = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// whoAmI is the identity id of the token, read once from
// _apis/connectionData (what every Azure DevOps client reads first; it
// takes no api-version).
func (c *Client) whoAmI(ctx context.Context) (string, error) {
	c.mu.Lock()
	me := c.me
	c.mu.Unlock()
	if me != "" {
		return me, nil
	}
	var cd connectionData
	if _, err := c.do(ctx, call{method: http.MethodGet, path: "_apis/connectionData?connectOptions=0&lastChangeId=-1&lastChangeId64=-1"}, &cd); err != nil {
		return "", fmt.Errorf("%s: %w", errMe, err)
	}
	if cd.AuthenticatedUser.ID == "" {
		return "", fmt.Errorf("%s: %w", errMe, &forge.APIError{Status: http.StatusOK, Message: "connectionData names no authenticated user", Kind: forge.ErrUnauthorized})
	}
	c.mu.Lock()
	c.me = cd.AuthenticatedUser.ID
	c.mu.Unlock()
	return cd.AuthenticatedUser.ID, nil
}

// identities resolves reviewer names to identity ids: an id stands for
// itself; a name is searched once (searchFilter=General: unique name,
// display name or account name) and must match exactly one identity.
func (c *Client) identities(ctx context.Context, names []string) ([]string, error) {
	ids := make([]string, 0, len(names))
	for _, n := range names {
		if guid.MatchString(n) {
			ids = append(ids, n)
			continue
		}
		c.mu.Lock()
		id, ok := c.names[n]
		c.mu.Unlock()
		if !ok {
			var err error
			if id, err = c.search(ctx, n); err != nil {
				return nil, err
			}
			c.mu.Lock()
			if len(c.names) >= maxKept {
				c.names = map[string]string{}
			}
			c.names[n] = id
			c.mu.Unlock()
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func (c *Client) search(ctx context.Context, name string) (string, error) {
	q := url.Values{"searchFilter": {"General"}, "filterValue": {name}, "queryMembership": {"None"}}
	var found list[identity]
	if _, err := c.do(ctx, call{method: http.MethodGet, path: "_apis/identities?" + q.Encode(), ids: true}, &found); err != nil {
		return "", fmt.Errorf(errIdentityFmt+": %w", name, err)
	}
	// The identity whose account (unique) name or mail is exactly name
	// wins: the search also matches display names, which anyone's may
	// copy. A sign-in address matches no display name; a group, or a
	// person named by display name, must be the one match.
	for _, i := range found.Value {
		if strings.EqualFold(i.Properties["Account"].Value, name) || strings.EqualFold(i.Properties["Mail"].Value, name) {
			return i.ID, nil
		}
	}
	switch {
	case len(found.Value) == 1 && !strings.Contains(name, "@") && strings.EqualFold(found.Value[0].ProviderDisplayName, name):
		return found.Value[0].ID, nil
	case len(found.Value) <= 1:
		return "", &forge.APIError{Status: http.StatusNotFound, Message: fmt.Errorf(errNoneFmt, name).Error(), Kind: forge.ErrInvalidInput}
	}
	return "", &forge.APIError{Status: http.StatusConflict, Message: fmt.Errorf(errManyFmt, len(found.Value), name).Error(), Kind: forge.ErrInvalidInput}
}
