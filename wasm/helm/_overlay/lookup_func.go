// gitsync's replacement for helm.sh/helm/v3/pkg/engine/lookup_func.go (v3.16.4), swapped in by a Go
// build overlay (scripts/lib/wasm.ts). Helm's `lookup` goes through client-go's discovery and dynamic
// clients, whose imports link every Kubernetes API type and the OpenAPI/protobuf stacks into the
// module. This version speaks the same HTTP to the API server with plain GETs through the rest.Config's
// Transport (the renderer's JavaScript callback): discovery of the group/version, then get or list.
// The names engine.go uses (ClientProvider, clientProviderFromConfig, newLookupFunction,
// NewLookupFunction) are kept; ClientProvider's method is this file's own.
package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"k8s.io/client-go/rest"
)

type lookupFunc = func(apiversion string, resource string, namespace string, name string) (map[string]interface{}, error)

// ClientProvider answers lookups: the object (name set) or the list (name empty); an object that does
// not exist is an empty map.
type ClientProvider interface {
	Lookup(apiVersion, kind, namespace, name string) (map[string]interface{}, error)
}

// NewLookupFunction returns a `lookup` served over the config's Host and Transport.
func NewLookupFunction(config *rest.Config) lookupFunc {
	return newLookupFunction(clientProviderFromConfig{config: config})
}

func newLookupFunction(clientProvider ClientProvider) lookupFunc {
	return func(apiversion string, kind string, namespace string, name string) (map[string]interface{}, error) {
		out, err := clientProvider.Lookup(apiversion, kind, namespace, name)
		if err != nil {
			return map[string]interface{}{}, err
		}
		return out, nil
	}
}

type clientProviderFromConfig struct {
	config *rest.Config
}

type apiResource struct {
	Name       string `json:"name"`
	Namespaced bool   `json:"namespaced"`
	Kind       string `json:"kind"`
}

func (c clientProviderFromConfig) Lookup(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
	base := "/apis/" + apiVersion
	if !strings.Contains(apiVersion, "/") {
		base = "/api/" + apiVersion
	}
	var list struct {
		Resources []apiResource `json:"resources"`
	}
	found, err := c.get(base, &list)
	if err != nil || !found {
		if err == nil {
			err = fmt.Errorf("the server could not find the requested resource")
		}
		return nil, fmt.Errorf("unable to get apiresource from unstructured: %s, Kind=%s: %w", apiVersion, kind, err)
	}
	var res *apiResource
	for i, r := range list.Resources {
		// A name with "/" is a subresource, which lookup does not serve.
		if r.Kind == kind && !strings.Contains(r.Name, "/") {
			res = &list.Resources[i]
			break
		}
	}
	if res == nil {
		return nil, fmt.Errorf("unable to get apiresource from unstructured: %s, Kind=%s: no such kind", apiVersion, kind)
	}
	target := base
	if res.Namespaced && namespace != "" {
		target += "/namespaces/" + url.PathEscape(namespace)
	}
	target += "/" + res.Name
	if name != "" {
		target += "/" + url.PathEscape(name)
	}
	out := map[string]interface{}{}
	if _, err := c.get(target, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// get GETs path into v; a 404 is (false, nil), as lookup answers a missing object with an empty map.
func (c clientProviderFromConfig) get(path string, v interface{}) (bool, error) {
	transport := c.config.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(c.config.Host, "/")+path, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := transport.RoundTrip(req)
	if err != nil {
		return false, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return false, err
	}
	if res.StatusCode == http.StatusNotFound {
		return false, nil
	}
	if res.StatusCode >= 300 {
		var status struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(body, &status) == nil && status.Message != "" {
			return false, fmt.Errorf("%s", status.Message)
		}
		return false, fmt.Errorf("GET %s: HTTP %d", path, res.StatusCode)
	}
	return true, json.Unmarshal(body, v)
}
