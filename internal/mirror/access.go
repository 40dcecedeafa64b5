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

package mirror

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const errAccessReview = "cannot ask the API server whether the provider may read"

// AccessReviewer asks the API server what the provider's own identity may
// do. client-go's AuthorizationV1().SelfSubjectAccessReviews() is one.
type AccessReviewer interface {
	Create(ctx context.Context, r *authorizationv1.SelfSubjectAccessReview, o metav1.CreateOptions) (*authorizationv1.SelfSubjectAccessReview, error)
}

// AccessReviewerFn adapts a function to AccessReviewer.
type AccessReviewerFn func(ctx context.Context, r *authorizationv1.SelfSubjectAccessReview, o metav1.CreateOptions) (*authorizationv1.SelfSubjectAccessReview, error)

// Create calls f.
func (f AccessReviewerFn) Create(ctx context.Context, r *authorizationv1.SelfSubjectAccessReview, o metav1.CreateOptions) (*authorizationv1.SelfSubjectAccessReview, error) {
	return f(ctx, r, o)
}

// watchVerbs are what an informer needs: a LIST to fill its cache, a WATCH
// to keep it current.
var watchVerbs = []string{"list", "watch"}

// checkAccess asks once per verb whether the provider may read what k
// names. Asking before starting an informer turns a missing grant into one
// error naming the verb, instead of an informer retrying a Forbidden LIST
// with backoff forever.
func checkAccess(ctx context.Context, az AccessReviewer, k watchKey) error {
	for _, verb := range watchVerbs {
		r, err := az.Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: k.namespace,
					Verb:      verb,
					Group:     k.gvr.Group,
					Version:   k.gvr.Version,
					Resource:  k.gvr.Resource,
				},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			return errors.Wrapf(err, "%s %s", errAccessReview, resourceName(k.gvr))
		}
		if !r.Status.Allowed {
			return &NotPermittedError{GVR: k.gvr, Namespace: k.namespace, Verb: verb}
		}
	}
	return nil
}
