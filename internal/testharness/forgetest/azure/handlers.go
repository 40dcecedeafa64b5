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
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	pulls = "/{org}/{project}/_apis/git/repositories/{repo}/pullrequests"
	// signIn is what Azure answers, 203, to a request it cannot
	// authenticate that did not ask for a 401.
	signIn = `<!DOCTYPE html><html><head><title>Azure DevOps Services | Sign In</title></head><body></body></html>`
	// throttled is Azure's words for a blocked request.
	throttled = "TF400733: The request has been canceled: Request was blocked due to exceeding usage of resource 'ATCPU' in namespace 'User'."
	// throttledResource is X-RateLimit-Resource of that answer.
	throttledResource = "ATCPU/User"
)

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{org}/_apis/connectionData", s.connectionData)
	mux.HandleFunc("GET /{org}/_apis/identities", s.searchIdentities)
	mux.HandleFunc("GET "+pulls, s.list)
	mux.HandleFunc("POST "+pulls, s.create)
	mux.HandleFunc("GET "+pulls+"/{id}", s.get)
	mux.HandleFunc("PATCH "+pulls+"/{id}", s.update)
	mux.HandleFunc("POST "+pulls+"/{id}/labels", s.addLabel)
	mux.HandleFunc("DELETE "+pulls+"/{id}/labels/{name}", s.removeLabel)
	mux.HandleFunc("PUT "+pulls+"/{id}/reviewers/{reviewer}", s.addReviewer)
	mux.HandleFunc("GET /{org}/{project}/_apis/policy/evaluations", s.evaluations)
	s.hookRoutes(mux)
	return mux
}

// recorder keeps the status an answer was written with.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// serve records, redirects, throttles, authenticates and checks the API
// version, then routes.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: rec.status, Auth: r.Header.Get("Authorization")})
		s.mu.Unlock()
	}()
	s.mu.Lock()
	redirect, delay := s.redirect, s.delay
	s.redirect, s.delay = "", 0
	var limit *time.Duration
	if len(s.throttle) > 0 {
		limit = s.throttle[0]
		s.throttle = s.throttle[1:]
	}
	s.mu.Unlock()
	switch {
	case redirect != "":
		// The test chose where to: redirecting off the API is the point.
		http.Redirect(rec, r, strings.TrimSuffix(redirect, "/")+r.URL.RequestURI(), http.StatusFound) //nolint:gosec // a test's own target.
		return
	case limit != nil:
		rateHeaders(rec.Header(), *limit)
		fail(rec, http.StatusTooManyRequests, "", throttled)
		return
	case identityOf(r.Header.Get("Authorization")) == "":
		if r.Header.Get("X-TFS-FedAuthRedirect") == "Suppress" {
			rec.Header().Set("WWW-Authenticate", "Bearer authorization_uri=https://login.microsoftonline.com/common, Basic realm=\"https://dev.azure.com/\"")
			rec.WriteHeader(http.StatusUnauthorized)
			return
		}
		rec.Header().Set("Content-Type", "text/html; charset=utf-8")
		rec.WriteHeader(http.StatusNonAuthoritativeInfo)
		_, _ = rec.Write([]byte(signIn))
		return
	}
	if delay > 0 {
		rateHeaders(rec.Header(), delay)
		rec.Header().Set("X-RateLimit-Delay", "0.500")
	}
	if !s.versioned(rec, r) {
		return
	}
	s.mux.ServeHTTP(rec, r)
}

// rateHeaders are the headers of a throttled user's answer.
func rateHeaders(h http.Header, retryAfter time.Duration) {
	h.Set("X-RateLimit-Resource", throttledResource)
	h.Set("X-RateLimit-Limit", "200")
	h.Set("X-RateLimit-Remaining", "0")
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int(retryAfter.Seconds())))
	}
}

// tokenOf is the token of an Authorization header: basic
// authentication's password (Azure reads no user name), or the bearer
// token.
func tokenOf(h string) string {
	scheme, v, _ := strings.Cut(h, " ")
	switch strings.ToLower(scheme) {
	case "bearer":
		return v
	case "basic":
		b, err := base64.StdEncoding.DecodeString(v)
		if _, pass, ok := strings.Cut(string(b), ":"); err == nil && ok {
			return pass
		}
	}
	return ""
}

// identityOf is the identity an Authorization header authenticates, ""
// none.
func identityOf(h string) string {
	switch tokenOf(h) {
	case PAT, BearerToken, CodeOnlyPAT:
		return MeID
	case TheirPAT:
		return TheirID
	}
	return ""
}

// preview are the routes whose 7.1 is a preview: they need the flag.
var preview = []string{"/labels", "/_apis/policy/evaluations"}

// versioned refuses a request without api-version, or without the
// -preview flag a preview resource needs (Azure's 400s); connectionData
// takes none.
func (s *Server) versioned(w http.ResponseWriter, r *http.Request) bool {
	if strings.HasSuffix(r.URL.Path, "/_apis/connectionData") {
		return true
	}
	v := r.URL.Query().Get("api-version")
	if v == "" {
		fail(w, http.StatusBadRequest, "VssVersionNotSpecifiedException", `No api-version was supplied for the "`+r.Method+`" request. The version must be supplied either as part of the Accept header (e.g. "application/json; api-version=1.0") or as a query parameter (e.g. "?api-version=1.0").`)
		return false
	}
	for _, p := range preview {
		if strings.Contains(r.URL.Path, p) && !strings.Contains(v, "-preview") {
			fail(w, http.StatusBadRequest, "VssInvalidPreviewVersionException", `The requested version "`+v+`" of the resource is under preview. The -preview flag must be supplied in the api-version for such requests. For example: "`+v+`-preview"`)
			return false
		}
	}
	return true
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8; api-version=7.1")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// fail answers Azure's error body.
func fail(w http.ResponseWriter, status int, typeKey, msg string) {
	reply(w, status, map[string]any{
		"$id": "1", "innerException": nil, "message": msg,
		"typeName": "Microsoft.TeamFoundation.Git.Server." + typeKey + ", Microsoft.TeamFoundation.Git.Server",
		"typeKey":  typeKey, "errorCode": 0, "eventId": 3000,
	})
}

// scope checks the organization, project and repository of r (by name or
// id); false has answered 404.
func scope(w http.ResponseWriter, r *http.Request) bool {
	if !strings.EqualFold(r.PathValue("org"), Org) {
		fail(w, http.StatusNotFound, "", "VS800075: The project with id 'vstfs:///Classification/TeamProject/' does not exist, or you do not have permission to access it.")
		return false
	}
	if p := r.PathValue("project"); p != "" && !strings.EqualFold(p, Project) && !strings.EqualFold(p, ProjectID) {
		fail(w, http.StatusNotFound, "ProjectDoesNotExistWithNameException", "TF200016: The following project does not exist: "+p+". Verify that the name of the project is correct and that the project exists on the specified Azure DevOps Server.")
		return false
	}
	if repo := r.PathValue("repo"); repo != "" && !strings.EqualFold(repo, Repo) && !strings.EqualFold(repo, RepoID) {
		fail(w, http.StatusNotFound, "GitRepositoryNotFoundException", "TF401019: The Git repository with name or identifier "+repo+" does not exist or you do not have permissions for the operation you are attempting.")
		return false
	}
	return true
}

// find is the pull request r names; nil has answered 404.
func (s *Server) find(w http.ResponseWriter, r *http.Request) *PullRequest {
	if !scope(w, r) {
		return nil
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	p, ok := s.prs[id]
	if !ok {
		fail(w, http.StatusNotFound, "GitPullRequestNotFoundException", "TF401180: The requested pull request was not found.")
		return nil
	}
	return p
}

func (s *Server) connectionData(w http.ResponseWriter, r *http.Request) {
	reply(w, http.StatusOK, map[string]any{
		"authenticatedUser": map[string]any{"id": MeID, "providerDisplayName": "provider-git"},
		"authorizedUser":    map[string]any{"id": MeID, "providerDisplayName": "provider-git"},
		"instanceId":        "00000000-0000-0000-0000-000000000001", "deploymentType": "hosted",
	})
}

func (s *Server) searchIdentities(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("searchFilter") != "General" {
		fail(w, http.StatusBadRequest, "InvalidArgumentValueException", "searchFilter must be General")
		return
	}
	// General matches unique names and display names alike.
	want := strings.ToLower(q.Get("filterValue"))
	s.mu.Lock()
	var found []Reviewer
	for key, i := range s.identities {
		if key == want || strings.EqualFold(i.DisplayName, want) {
			found = append(found, i)
		}
	}
	s.mu.Unlock()
	out := []any{}
	for _, i := range found {
		out = append(out, map[string]any{
			"id": i.ID, "providerDisplayName": i.DisplayName, "isActive": true, "isContainer": false,
			"properties": map[string]any{"Account": map[string]string{"$type": "System.String", "$value": i.UniqueName},
				"Mail": map[string]string{"$type": "System.String", "$value": i.UniqueName}},
		})
	}
	reply(w, http.StatusOK, map[string]any{"count": len(out), "value": out})
}
